/**
 * Which patterns may run on JavaScript's own RegExp instead of RE2 (regex.ts): those whose every match
 * attempt, by a backtracking engine, is bounded by the pattern alone, and on which both engines give the
 * same answer. RE2's port (re2js) costs about 0.7 µs a match where V8 takes 0.07 µs; a `$match` per
 * order line made it a tenth of a list transform's time.
 *
 * Bounded: a quantifier applies to one character, class or escape (never to a group), and a quantifier
 * without an upper bound (`*`, `+`, `{n,}`) is the pattern's very last item: it takes what it can and
 * the match ends, so it never gives anything back. The other choices an attempt can try (`?`, `{n,m}`,
 * the branches of `|`) multiply to at most MAX_CHOICES. Every start position then costs at most the
 * pattern's length times that, so a text of n characters costs O(n), as on RE2.
 *
 * The same answer: only constructs both define alike are taken: literal characters, classes of ASCII
 * characters or ranges (not negated), `\d`, `\w`, escaped punctuation, `\t`, `\n`, `\r`, `^` and `$`
 * without the `m` flag, groups `(...)` and `(?:...)`, and no flag but JSONata's own `g`. Not `.`, `\s`,
 * negated classes or `i`: RE2 defines them over code points and other line ends and spaces than
 * JavaScript does, and a pattern using them stays on RE2.
 */

const MAX_CHOICES = 256;

/** An escape both engines read alike: the class escapes \d and \w, control characters, punctuation. */
const SAME_ESCAPE = /^[dwtnr\\/.\-^$*+?()[\]{}|]$/;

interface Scan {
  readonly source: string;
  at: number;
  choices: number;
  /** Set once an unbounded quantifier was read: nothing may follow it. */
  ended: boolean;
}

/** The equivalent native RegExp of a RE2-ready pattern, or undefined when it must stay on RE2. */
export function nativeEquivalent(pattern: RegExp): RegExp | undefined {
  if (pattern.flags !== 'g') return undefined;
  const scan: Scan = { source: pattern.source, at: 0, choices: 1, ended: false };
  if (!alternatives(scan, 0) || scan.at !== scan.source.length) return undefined;
  return new RegExp(pattern.source, 'g');
}

/** Branches separated by `|` up to the end or the group's `)`: each branch's choices add up. */
function alternatives(scan: Scan, depth: number): boolean {
  const before = scan.choices;
  let total = 0;
  for (;;) {
    scan.choices = before;
    if (!sequence(scan, depth)) return false;
    total += scan.choices;
    if (scan.source[scan.at] !== '|') break;
    if (scan.ended) return false;
    scan.at += 1;
  }
  scan.choices = total;
  return total <= MAX_CHOICES;
}

function sequence(scan: Scan, depth: number): boolean {
  while (scan.at < scan.source.length) {
    const ch = scan.source[scan.at];
    if (ch === '|' || ch === ')') return depth > 0 || ch === '|';
    if (scan.ended) return false;
    if (ch === '(') {
      if (!group(scan, depth)) return false;
      continue;
    }
    if (ch === '^' || (ch === '$' && scan.at === scan.source.length - 1)) {
      scan.at += 1;
      continue;
    }
    if (!atom(scan) || !quantifier(scan)) return false;
  }
  return true;
}

/** `(...)` or `(?:...)`, never quantified itself. */
function group(scan: Scan, depth: number): boolean {
  scan.at += scan.source.startsWith('(?:', scan.at) ? 3 : 1;
  if (scan.source[scan.at] === '?') return false;
  if (!alternatives(scan, depth + 1) || scan.source[scan.at] !== ')') return false;
  scan.at += 1;
  return !isQuantifier(scan.source[scan.at]);
}

function atom(scan: Scan): boolean {
  const ch = scan.source[scan.at];
  if (ch === '\\') {
    const escaped = scan.source[scan.at + 1];
    if (escaped === undefined || !SAME_ESCAPE.test(escaped)) return false;
    scan.at += 2;
    return true;
  }
  if (ch === '[') return characterClass(scan);
  // Outside ASCII a character may be two units in JavaScript and one code point in RE2 (a quantifier after it differs).
  if (ch === '.' || isQuantifier(ch) || ch === '$' || ch === ']' || ch === '}' || ch.charCodeAt(0) > 0x7e) return false;
  scan.at += 1;
  return true;
}

/** `[A-Z0-9_-]`: ASCII characters, ranges and the escapes above; not negated. */
function characterClass(scan: Scan): boolean {
  scan.at += 1;
  if (scan.source[scan.at] === '^') return false;
  while (scan.at < scan.source.length && scan.source[scan.at] !== ']') {
    const ch = scan.source[scan.at];
    if (ch === '\\') {
      const escaped = scan.source[scan.at + 1];
      if (escaped === undefined || !SAME_ESCAPE.test(escaped)) return false;
      scan.at += 2;
      continue;
    }
    if (ch.charCodeAt(0) > 0x7e || ch === '[') return false;
    scan.at += 1;
  }
  if (scan.source[scan.at] !== ']') return false;
  scan.at += 1;
  return true;
}

function isQuantifier(ch: string | undefined): boolean {
  return ch === '*' || ch === '+' || ch === '?' || ch === '{';
}

/** The quantifier after an atom, if any: bounded ones multiply the choices, an unbounded one ends the pattern. */
function quantifier(scan: Scan): boolean {
  const ch = scan.source[scan.at];
  if (!isQuantifier(ch)) return true;
  let low: number;
  let high: number;
  if (ch === '{') {
    const bounds = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(scan.source.slice(scan.at));
    if (!bounds) return false;
    low = Number(bounds[1]);
    high = bounds[2] === undefined ? low : bounds[3] === '' ? Infinity : Number(bounds[3]);
    scan.at += bounds[0].length;
  } else {
    low = ch === '+' ? 1 : 0;
    high = ch === '?' ? 1 : Infinity;
    scan.at += 1;
  }
  // A lazy quantifier (`+?`) tries the shortest first and may give back: left to RE2.
  if (scan.source[scan.at] === '?' || low > high) return false;
  if (high === Infinity) {
    scan.ended = true;
    return true;
  }
  scan.choices *= high - low + 1;
  return scan.choices <= MAX_CHOICES;
}
