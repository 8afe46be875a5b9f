import { ExpressionLimitError, textTooLong } from './guard';
import { driveSteps, isFunction, isThenable, type Focus } from './guarded-slices';
import { ownRegexOf, type OwnRegex } from './regex';

/**
 * `$split`, `$replace` and `$match` in slices (guarded-slices.ts). JSONata's own loop over the matches
 * of a pattern in one step: its `await` of a match that is already there never lets a timer or a socket
 * in, so on a text of 60 MB with ten million separators `$split` by a regular expression blocked every
 * request of the process for 21 s, `$replace` for 12 s (5 s with a text pattern), `$match` of a million
 * matches for 1 s, and the time limit could not stop them. Same results and the same errors, in the same
 * order (a matcher is called exactly as JSONata calls it); `$split` and `$match` stop at the sequence
 * limit and `$replace` at the text limit while they work instead of after.
 */

/** One match, as the loops below read it. */
interface Match {
  readonly match: string;
  readonly start: number;
  readonly end: number;
  readonly groups: readonly unknown[];
}

/** What a matcher answers (JSONata's regex closure, or a function of the mapping): one match and the way to the next. */
interface Found extends Match {
  readonly next: unknown;
}

interface Callable {
  apply(self: unknown, args: readonly unknown[]): unknown;
}

/** JSONata's evaluateMatcher: the matcher's answer, checked for the shape of a match (T1010). */
function checked(result: unknown): Found | undefined {
  const found = result as Partial<Found> | undefined;
  // JSONata's own test, its `result.end === 'number'` slip included.
  if (found && !(typeof found.start === 'number' || (found.end as unknown) === 'number' || Array.isArray(found.groups) || isFunction(found.next))) {
    throw { code: 'T1010', stack: new Error().stack };
  }
  return result as Found | undefined;
}

function callMatcher(matcher: unknown, text: string | undefined): Found | undefined | PromiseLike<Found | undefined> {
  // As evaluateMatcher, called as a plain function in strict code: no `this`.
  const result = (matcher as Callable).apply(undefined, [text]);
  return isThenable(result) ? Promise.resolve(result).then(checked) : checked(result);
}

/**
 * A text this short is matched in one go: it has at most 64 matches (each after the first takes a
 * character at least, else D1004), and driveSteps runs 64 steps, a match each, before it first reads
 * the clock, so no time slice is given up here that driveSteps would have kept. Its machinery (a clock
 * read, closures per step, a match object and a `next` closure per match) was most of a `$match` on the
 * short texts of order lines (names, lot numbers, codes).
 */
const SHORT_TEXT = 63;

/** The engine of the engine's own matcher, when the loop may run it itself: on a short text, nothing of the mapping called in between. */
function ownLane(matcher: unknown, text: string): OwnRegex | undefined {
  return text.length <= SHORT_TEXT ? ownRegexOf(matcher) : undefined;
}

/**
 * JSONata's loop over the matches: the first match of `text`, then, while there is one and fewer than
 * `limit` were taken, `visit` it and ask it for the next. `finish` gets the number taken. `own`: the
 * matcher's engine (ownLane), run directly; `visit` is then synchronous.
 */
function eachMatch<T>(
  focus: Focus | undefined,
  matcher: unknown,
  text: string,
  limit: number | undefined,
  visit: (found: Match) => void | PromiseLike<void>,
  finish: (count: number) => T,
  own?: OwnRegex,
): T | Promise<T> {
  if (own !== undefined) return eachOwnMatch(own, text, limit, visit, finish);
  let found: Found | undefined;
  let started = false;
  let count = 0;
  const advance = (): boolean | PromiseLike<boolean> => {
    const next = callMatcher((found as Found).next, undefined);
    const moved = (value: Found | undefined): boolean => {
      found = value;
      count += 1;
      return false;
    };
    return isThenable(next) ? next.then(moved) : moved(next);
  };
  const step = (): boolean | PromiseLike<boolean> => {
    if (!started) {
      started = true;
      const first = callMatcher(matcher, text);
      if (!isThenable(first)) {
        found = first;
        return false;
      }
      return first.then((value) => {
        found = value;
        return false;
      });
    }
    if (found === undefined || (limit !== undefined && count >= limit)) return true;
    const visited = visit(found);
    return isThenable(visited) ? visited.then(advance) : advance();
  };
  return driveSteps(focus, step, () => finish(count));
}

/**
 * eachMatch over the own matcher's engine: the same calls of `exec` as the matcher and each match's
 * `next` make (language.ts's regexMatcher), in the same order, the one after the last visit included
 * (its D1004 too), without the match objects and closures.
 */
function eachOwnMatch<T>(own: OwnRegex, text: string, limit: number | undefined, visit: (found: Match) => unknown, finish: (count: number) => T): T {
  const { regex } = own;
  regex.lastIndex = 0;
  let answer = regex.exec(text);
  let count = 0;
  while (answer !== null && (limit === undefined || count < limit)) {
    const match = answer[0];
    visit({ match, start: answer.index, end: answer.index + match.length, groups: answer.slice(1) });
    // `next`: none once the match reached the end of the text, else the match from where this one ended.
    answer = regex.lastIndex >= text.length ? null : regex.exec(text);
    if (answer !== null && answer[0] === '') own.zeroLength();
    count += 1;
  }
  return finish(count);
}

function maxItems(focus: Focus | undefined): number {
  const limit = focus?.options?.sequence;
  return typeof limit === 'number' && limit > 0 ? limit : Infinity;
}

function maxText(focus: Focus | undefined): number {
  const limit = focus?.options?.maxTextLength;
  return typeof limit === 'number' && limit > 0 ? limit : Infinity;
}

function tooManyItems(name: string, limit: number): ExpressionLimitError {
  return new ExpressionLimitError('list', `the expression built a list of more than ${limit} items (${name}); the limit is ${limit}`);
}

// ---------------------------------------------------------------------------------------------- $split

/** $split(text, separator, limit?): a text separator as String.prototype.split, a pattern as JSONata's loop. */
function split(this: Focus | undefined, text: string | undefined, separator: unknown, limit?: number): unknown {
  if (text === undefined) return undefined;
  if (limit !== undefined && limit < 0) throw { code: 'D3020', stack: new Error().stack, value: limit, index: 3 };
  const result: string[] = [];
  if (!(limit === undefined || limit > 0)) return result;
  const most = maxItems(this);
  const add = (part: string): void => {
    if (result.length >= most) throw tooManyItems('$split', most);
    result.push(part);
  };
  if (typeof separator === 'string') return splitByText(this, text, separator, limit, add, result);
  let start = 0;
  return eachMatch(this, separator, text, limit, (found) => {
    add(text.substring(start, found.start));
    start = found.end;
  }, (count) => {
    // The rest after the last separator, unless the limit stopped the loop (no match at all: the whole text).
    if (limit === undefined || count < limit) add(text.substring(start));
    return result;
  }, ownLane(separator, text));
}

/** String.prototype.split(separator, limit), one part per step. */
function splitByText(focus: Focus | undefined, text: string, separator: string, limit: number | undefined, add: (part: string) => void, result: string[]): unknown {
  // ToUint32, as String.prototype.split reads its limit.
  const most = limit === undefined ? 2 ** 32 - 1 : limit >>> 0;
  if (most === 0) return result;
  if (separator === '') {
    let index = 0;
    return driveSteps(focus, () => {
      if (index >= text.length || result.length >= most) return true;
      add(text[index++]);
      return false;
    }, () => result);
  }
  let position = 0;
  let finished = false;
  return driveSteps(focus, () => {
    if (finished) return true;
    const index = text.indexOf(separator, position);
    if (index === -1) {
      add(text.substring(position));
      finished = true;
      return true;
    }
    add(text.substring(position, index));
    position = index + separator.length;
    return result.length >= most;
  }, () => result);
}

// ---------------------------------------------------------------------------------------------- $replace

/** JSONata's text replacement: `$0` the match, `$1`… its groups, `$$` a dollar. */
function substitute(replacement: string, found: Match): string {
  let text = '';
  let position = 0;
  let index = replacement.indexOf('$', position);
  while (index !== -1 && position < replacement.length) {
    text += replacement.substring(position, index);
    position = index + 1;
    const dollarVal = replacement.charAt(position);
    if (dollarVal === '$') {
      text += '$';
      position++;
    } else if (dollarVal === '0') {
      text += found.match;
      position++;
    } else {
      const maxDigits = found.groups.length === 0 ? 1 : Math.floor(Math.log(found.groups.length) * Math.LOG10E) + 1;
      index = parseInt(replacement.substring(position, position + maxDigits), 10);
      if (maxDigits > 1 && index > found.groups.length) index = parseInt(replacement.substring(position, position + maxDigits - 1), 10);
      if (!isNaN(index)) {
        if (found.groups.length > 0) {
          const submatch = found.groups[index - 1];
          if (submatch !== undefined) text += submatch as string;
        }
        position += index.toString().length;
      } else {
        text += '$';
      }
    }
    index = replacement.indexOf('$', position);
  }
  return text + replacement.substring(position);
}

const PARTS_PER_JOIN = 1024;

/** $replace(text, pattern, replacement, limit?) */
function replace(this: Focus | undefined, text: string | undefined, pattern: unknown, replacement: unknown, limit?: number): unknown {
  if (text === undefined) return undefined;
  if (pattern === '') throw { code: 'D3010', stack: new Error().stack, value: pattern, index: 2 };
  if (limit !== undefined && limit < 0) throw { code: 'D3011', stack: new Error().stack, value: limit, index: 4 };
  if (!(limit === undefined || limit > 0)) return text;
  const most = maxText(this);
  // Parts joined a thousand at a time: `+=` on each of ten million parts made a rope that took 0.6 s to
  // flatten in one step when the text was first read.
  let result = '';
  let parts: string[] = [];
  let pending = 0;
  let position = 0;
  const append = (part: string): void => {
    parts.push(part);
    pending += part.length;
    if (result.length + pending > most) throw textTooLong(result.length + pending, most);
    if (parts.length >= PARTS_PER_JOIN) flush();
  };
  const flush = (): string => {
    result += parts.join('');
    parts = [];
    pending = 0;
    return result;
  };
  if (typeof pattern === 'string') {
    let count = 0;
    let index = text.indexOf(pattern, position);
    return driveSteps(this, () => {
      if (index === -1 || (limit !== undefined && count >= limit)) return true;
      // JSONata appends whatever the replacement is (a function written out as a text).
      append(text.substring(position, index) + (replacement as string));
      position = index + pattern.length;
      count++;
      index = text.indexOf(pattern, position);
      return false;
    }, () => {
      append(text.substring(position));
      return flush();
    });
  }
  const written = (value: unknown, found: Match): void => {
    if (typeof value !== 'string') throw { code: 'D3012', stack: new Error().stack, value };
    append(value);
    position = found.start + found.match.length;
  };
  return eachMatch(this, pattern, text, limit, (found) => {
    append(text.substring(position, found.start));
    if (typeof replacement === 'string') return written(substitute(replacement, found), found);
    const value = (replacement as Callable).apply(this, [found]);
    return isThenable(value) ? Promise.resolve(value).then((resolved) => written(resolved, found)) : written(value, found);
  }, () => {
    append(text.substring(position));
    return flush();
    // A function of the mapping as the replacement gets each match with its `next`: the matcher's own.
  }, typeof replacement === 'string' ? ownLane(pattern, text) : undefined);
}

// ---------------------------------------------------------------------------------------------- $match

/** $match(text, pattern, limit?): a sequence of {match, index, groups}. */
function match(this: Focus | undefined, text: string | undefined, pattern: unknown, limit?: number): unknown {
  if (text === undefined) return undefined;
  if (limit !== undefined && limit < 0) throw { stack: new Error().stack, value: limit, code: 'D3040', index: 3 };
  const result = this?.createSequence ? this.createSequence() : [];
  if (!(limit === undefined || limit > 0)) return result;
  return eachMatch(this, pattern, text, limit, (found) => {
    result.push({ match: found.match, index: found.start, groups: found.groups });
  }, () => result, ownLane(pattern, text));
}

export const PATTERN_BUILTINS = [
  { name: 'split', signature: '<s-(sf)n?:a<s>>', implementation: split },
  { name: 'replace', signature: '<s-(sf)(sf)n?:s>', implementation: replace },
  { name: 'match', signature: '<s-f<s:o>n?:a<o>>', implementation: match },
] as const;
