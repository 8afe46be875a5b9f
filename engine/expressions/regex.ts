import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import { nativeEquivalent } from './regex-native';

/**
 * Regular expressions in mappings run on RE2 (the pure JavaScript port re2js), whose matching time is
 * linear in the text: JavaScript's own engine backtracks, so `/^(a+)+$/` on thirty `a`s and an `X`
 * runs for seconds and blocks every request of the process, which no time limit can interrupt.
 *
 * JSONata hands its `RegexEngine` option the RegExp it parsed from the literal (`/.../i` with the flag
 * `g` added) and uses the object only through `lastIndex` and `exec`, so LinearRegex offers just those.
 * Patterns are compiled once: at load, where a pattern RE2 cannot run is refused with its position (see
 * findUnsupportedRegex), and the compiled program is kept by flags and source (READY_PATTERNS), so
 * evaluations only match.
 */

/** Why RE2 cannot run a pattern, in the words an integrator needs. */
class UnsupportedRegexReason {
  constructor(readonly message: string) {}
}

/** A pattern made ready to match: RE2's program and the text every match contains (requiredText). */
interface ReadyPattern {
  readonly program: RE2JS;
  readonly required: string | undefined;
  /** JavaScript's own RegExp where it is bounded and answers as RE2 does (regex-native.ts). */
  readonly native: RegExp | undefined;
}

/**
 * Ready patterns by flags and source. JSONata makes a new RegExp-engine object from the literal on every
 * evaluation of it (and `$eval` or a text pattern a new RegExp), so the program is looked up by what it is
 * made from, not by the object: compiling it again cost more than the match on every call. Bounded: `$eval`
 * can bring patterns known only at request time.
 */
const READY_PATTERNS = new LRUCache<string, ReadyPattern>({ max: 1024 });

/**
 * The same, by the literal's RegExp object: JSONata makes a matcher of the parse tree's RegExp at
 * every evaluation of the literal, and the LRU's bookkeeping of a hit was a tenth of a `$match` on a
 * short text. A weak map keeps nothing alive that the tree does not.
 */
const READY_LITERALS = new WeakMap<RegExp, ReadyPattern>();

/** The JavaScript constructs RE2 has no linear-time way to run, found in the pattern text. */
function javascriptOnly(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `backreference \\${next}`;
      if (!inClass && next === 'k' && source[i + 2] === '<') return 'named backreference \\k<...>';
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === '(' && source[i + 1] === '?') {
      const kind = source.slice(i + 2, i + 4);
      if (kind.startsWith('=')) return 'lookahead (?=...)';
      if (kind.startsWith('!')) return 'negative lookahead (?!...)';
      if (kind === '<=') return 'lookbehind (?<=...)';
      if (kind === '<!') return 'negative lookbehind (?<!...)';
    }
  }
  return undefined;
}

function compile(pattern: RegExp): ReadyPattern | UnsupportedRegexReason {
  const key = `${pattern.flags}/${pattern.source}`;
  const known = READY_PATTERNS.get(key);
  if (known) return known;
  const construct = javascriptOnly(pattern.source);
  if (construct) {
    return new UnsupportedRegexReason(
      `the regular expression /${pattern.source}/ uses a ${construct}, which needs backtracking; mappings run regular expressions in linear time (RE2), which has none: match the parts separately or test the text with other functions`,
    );
  }
  let program: RE2JS;
  try {
    program = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    const detail = (error as Error).message.replace(/^error parsing regexp: /, '');
    return new UnsupportedRegexReason(`the regular expression /${pattern.source}/ cannot run in linear time (RE2): ${detail}`);
  }
  const ready = { program, required: requiredText(pattern), native: nativeEquivalent(pattern) };
  READY_PATTERNS.set(key, ready);
  return ready;
}

/** RE2's matcher of one text. */
type Matcher = ReturnType<RE2JS['matcher']>;

/** What JSONata reads of `exec`'s answer: the match, its groups, where it starts. */
export type ExecAnswer = string[] & { index: number; input: string };

/** Characters that stand for themselves outside a class, in both engines. */
const PLAIN = /[A-Za-z0-9 _\-:@#,;=<>"'%&~]/;

/**
 * Text every match must contain: the pattern's longest run of plain characters outside any group or
 * class (`LOT-` of `/\s+LOT-[A-Z]\d{4}$/`), without its last one when a quantifier follows it. None when
 * the pattern has an alternative anywhere (`/LOT|SER/` needs neither), ignores case, or the run is short.
 * A text without it has no match, and RE2 is not started: most texts a mapping tests have none.
 */
export function requiredText(pattern: RegExp): string | undefined {
  const source = pattern.source;
  if (pattern.flags.includes('i') || source.includes('|')) return undefined;
  let longest = '';
  let run = '';
  let depth = 0;
  for (let at = 0; at < source.length; at++) {
    const ch = source[at];
    if (depth === 0 && PLAIN.test(ch)) {
      run += ch;
      continue;
    }
    // A quantifier takes the run's last character, which may then be absent or repeated.
    const kept = ch === '?' || ch === '*' || ch === '+' || ch === '{' ? run.slice(0, -1) : run;
    if (kept.length > longest.length) longest = kept;
    run = '';
    if (ch === '\\') {
      // `\u0041`, `\x41`, `\cA` and `\012` are characters written with other characters: left alone.
      if (/[uxc0-9]/.test(source[at + 1] ?? '')) return undefined;
      at++;
    }
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '[') at = classEnd(source, at);
    else if (ch === '{') at = Math.max(at, source.indexOf('}', at));
  }
  if (run.length > longest.length) longest = run;
  return longest.length >= 2 ? longest : undefined;
}

/** The position of the `]` that closes the class opened at `open` (escapes inside it skipped; `[]` is empty in JavaScript). */
function classEnd(source: string, open: number): number {
  let at = open + 1;
  if (source[at] === '^') at++;
  for (; at < source.length && source[at] !== ']'; at++) if (source[at] === '\\') at++;
  return at;
}

/**
 * The key under which the engine's own matcher of a literal (fast-path/language.ts's regexMatcher)
 * carries its engine, so that `$match`, `$replace`, `$split` and `$contains` (guarded-patterns.ts,
 * fast-path/higher-order.ts) can run the pattern themselves, without a match object and a `next`
 * closure per match: they call `exec` exactly as the matcher and its `next` would, in the same order.
 */
export const OWN_REGEX = Symbol('own regex');

/** The engine of an own matcher, and what its `next` does with a zero-length match after the first (D1004). */
export interface OwnRegex {
  readonly regex: LinearRegex;
  readonly zeroLength: () => never;
}

/** The own matcher's engine, if `matcher` is one (any other value: a function of the mapping, JSONata's closure). */
export function ownRegexOf(matcher: unknown): OwnRegex | undefined {
  return typeof matcher === 'function' ? (matcher as { [OWN_REGEX]?: OwnRegex })[OWN_REGEX] : undefined;
}

export class LinearRegex {
  lastIndex = 0;
  private readonly program: RE2JS;
  /** A text without it has no match: RE2's matcher is not started (most texts a mapping tests have none). */
  private readonly required: string | undefined;
  /** Shared by every matcher of the pattern: exec is synchronous, and lastIndex is set before each. */
  private readonly native: RegExp | undefined;

  constructor(pattern: RegExp | string) {
    // JSONata always passes the RegExp of the literal; a string would come from a caller outside JSONata.
    const regex = typeof pattern === 'string' ? new RegExp(pattern, 'g') : pattern;
    const ready = READY_LITERALS.get(regex) ?? compile(regex);
    if (regex === pattern && !(ready instanceof UnsupportedRegexReason)) READY_LITERALS.set(regex, ready);
    // Only reachable through $eval (text known at request time): the expression's own literals were checked at load.
    if (ready instanceof UnsupportedRegexReason) throw new Error(ready.message);
    this.program = ready.program;
    this.required = ready.required;
    this.native = ready.native;
  }

  /** RegExp.prototype.exec with the `g` flag: from lastIndex, which moves to the end of the match. */
  exec(text: string): ExecAnswer | null {
    if (this.native !== undefined) return this.onNative(this.native, (native) => native.exec(text) as ExecAnswer | null);
    const matcher = this.find(text);
    if (matcher === undefined) return null;
    const answer = [] as unknown as ExecAnswer;
    const groups = matcher.groupCount();
    for (let group = 0; group <= groups; group++) {
      // A group that took no part is undefined in a JavaScript match, null in RE2's.
      answer.push(matcher.group(group) ?? (undefined as unknown as string));
    }
    answer.index = matcher.start();
    answer.input = text;
    this.lastIndex = matcher.end();
    return answer;
  }

  /** exec(text) !== null, with the same move of lastIndex, without building the answer. */
  test(text: string): boolean {
    if (this.native !== undefined) return this.onNative(this.native, (native) => native.test(text));
    const matcher = this.find(text);
    if (matcher === undefined) return false;
    this.lastIndex = matcher.end();
    return true;
  }

  /** RE2's first match from lastIndex, or lastIndex back to 0 and none. */
  private find(text: string): Matcher | undefined {
    const from = this.lastIndex;
    if (from <= text.length && (this.required === undefined || text.indexOf(this.required, from) >= 0)) {
      const matcher = this.program.matcher(text);
      if (matcher.find(from)) return matcher;
    }
    this.lastIndex = 0;
    return undefined;
  }

  /** A call of the shared native RegExp from this matcher's lastIndex, which then moves as the RegExp's did. */
  private onNative<T>(native: RegExp, call: (native: RegExp) => T): T {
    native.lastIndex = this.lastIndex;
    const answer = call(native);
    this.lastIndex = native.lastIndex;
    return answer;
  }
}

export interface RegexProblem {
  /** 0-based offset of the literal's opening `/` in the expression text. */
  readonly offset: number;
  readonly message: string;
}

interface Node {
  readonly type?: unknown;
  readonly value?: unknown;
  readonly position?: unknown;
}

/**
 * Every regular expression literal of a parsed expression, compiled for RE2 (so requests find them
 * ready); the first one RE2 cannot run is returned with its place in `source`.
 */
export function findUnsupportedRegex(ast: unknown, source: string): RegexProblem | undefined {
  const seen = new Set<unknown>();
  const pending: unknown[] = [ast];
  let first: RegexProblem | undefined;
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (node instanceof RegExp) continue;
    const { type, value, position } = node as Node;
    if (type === 'regex' && value instanceof RegExp) {
      const program = compile(value);
      if (program instanceof UnsupportedRegexReason) {
        const offset = literalStart(source, value, typeof position === 'number' ? position : 0);
        if (!first || offset < first.offset) first = { offset, message: program.message };
      }
      continue;
    }
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') pending.push(child);
  }
  return first;
}

/** JSONata places a regex token just after its flags; find the opening slash before that. */
function literalStart(source: string, pattern: RegExp, end: number): number {
  const written = source.lastIndexOf(`/${pattern.source}/`, end);
  if (written >= 0) return written;
  const guess = end - pattern.source.length - 2 - pattern.flags.replace('g', '').length;
  return Math.min(Math.max(0, guess), Math.max(0, source.length - 1));
}
