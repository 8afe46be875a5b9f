import { textTooLong } from './guard';
import { drive, type Focus } from './guarded-slices';

/**
 * `$length`, `$substring` and `$pad`, counting characters (code points) in slices (guarded-slices.ts).
 * JSONata's own copy the text into an array of characters first, one push at a time: on a text of ten
 * million characters (an ERP field can be one) each blocked the event loop for about a second, and
 * `$pad` builds its padding with a join before anything looks at its size (`$pad('x', 5e8)` ended the
 * process before the text limit existed). Same results; `$pad` refuses a text over the limit before
 * building it.
 */

/** UTF-16 units looked at between two looks at the clock. */
const UNITS_PER_SLICE = 1 << 16;

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Walks `text` character by character (a surrogate pair is one, a lone surrogate is one: what
 * `for...of` and JSONata's stringToArray see) up to `stopAt` characters; the characters seen and the
 * offset reached.
 */
function walk(focus: Focus | undefined, text: string, stopAt: number): { points: number; offset: number } | Promise<{ points: number; offset: number }> {
  let points = 0;
  let offset = 0;
  const work = (): boolean => {
    const end = Math.min(text.length, offset + UNITS_PER_SLICE);
    while (offset < end && points < stopAt) {
      if (isHigh(text.charCodeAt(offset)) && offset + 1 < text.length && isLow(text.charCodeAt(offset + 1))) offset += 2;
      else offset += 1;
      points += 1;
    }
    return offset >= text.length || points >= stopAt;
  };
  return drive(focus, work, () => ({ points, offset }));
}

function then<T, U>(value: T | Promise<T>, next: (value: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** $length(text): the number of characters. */
function length(this: Focus, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  return then(walk(this, text, Infinity), ({ points }) => points);
}

/** Array.prototype.slice's reading of an index (ToIntegerOrInfinity, then relative to the end). */
function sliceIndex(index: number, count: number): number {
  // `start` can be nothing (JSONata passes undefined on): NaN, read as 0.
  const truncated = Math.trunc(index);
  const integer = Number.isNaN(truncated) ? 0 : truncated;
  if (integer < 0) return Math.max(count + integer, 0);
  return Math.min(integer, count);
}

/** $substring(text, start, length?): JSONata's arithmetic on the array of characters, then the slice. */
function substring(this: Focus, text: string | undefined, start: number, size?: number): unknown {
  if (text === undefined) return undefined;
  return then(walk(this, text, Infinity), ({ points }) => {
    let first = start;
    if (points + first < 0) first = 0;
    let end: number | undefined;
    if (size !== undefined) {
      if (size <= 0) return '';
      end = first >= 0 ? first + size : points + first + size;
    }
    const from = sliceIndex(first, points);
    const to = end === undefined ? points : sliceIndex(end, points);
    if (to <= from) return '';
    return then(walk(this, text, from), ({ offset: begin }) => then(walk(this, text, to), ({ offset: finish }) => text.slice(begin, finish)));
  });
}

/** $pad(text, width, char?): `char` repeated to |width| characters in all, after the text (before it for a negative width). */
function pad(this: Focus, text: string | undefined, width: number, char?: string): unknown {
  if (text === undefined) return undefined;
  const filler = char === undefined || char.length === 0 ? ' ' : char;
  const target = Math.abs(Math.trunc(width));
  return then(walk(this, text, Infinity), ({ points }) => {
    const missing = target - points;
    if (!(missing > 0)) return text;
    // JSONata's `new Array(missing + 1)` for an infinite width.
    if (!Number.isFinite(missing)) throw new RangeError('Invalid array length');
    const limit = this?.options?.maxTextLength;
    const tooLong = (units: number): boolean => typeof limit === 'number' && limit > 0 && units > limit;
    // Every character is at least one unit: refused before anything is built.
    if (tooLong(text.length + missing)) throw textTooLong(text.length + missing, limit as number);
    return then(walk(this, filler, Infinity), ({ points: fillerPoints }) => {
      // JSONata repeats the filler, then keeps the first `missing` characters of the whole. Copies joined
      // end to start can pair a high surrogate with a low one, so a copy can add one character less.
      const joins = isHigh(filler.charCodeAt(filler.length - 1)) && isLow(filler.charCodeAt(0));
      const copies = joins ? Math.ceil(missing / Math.max(fillerPoints - 1, 1)) + 1 : Math.ceil(missing / fillerPoints);
      const repeated = filler.repeat(copies);
      return then(walk(this, repeated, missing), ({ offset }) => {
        const padding = repeated.slice(0, offset);
        if (tooLong(text.length + padding.length)) throw textTooLong(text.length + padding.length, limit as number);
        return width > 0 ? text + padding : padding + text;
      });
    });
  });
}

export const TEXT_BUILTINS = [
  { name: 'length', signature: '<s-:n>', implementation: length },
  { name: 'substring', signature: '<s-nn?:s>', implementation: substring },
  { name: 'pad', signature: '<s-ns?:s>', implementation: pad },
] as const;
