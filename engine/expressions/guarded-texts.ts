import { textTooLong } from './guard';
import { CHECK_EVERY, drive, andThen, type Focus } from './guarded-slices';

/**
 * `$length`, `$substring` and `$pad`, counting characters (code points) in slices (guarded-slices.ts).
 * JSONata's own copy the text into an array of characters first, one push at a time: on a text of ten
 * million characters (an ERP field can be one) each blocked the event loop for about a second, and
 * `$pad` builds its padding with a join before anything looks at its size (`$pad('x', 5e8)` ended the
 * process before the text limit existed). Same results; `$pad` refuses a text over the limit before
 * building it. `$trim` and `$join` are native but one step: `$trim` of 60 MB with ten million runs of
 * spaces blocked for 4 s, `$join` building a text of 500 million characters for 0.9 s (and 540 MB)
 * before the text limit could look at it; here `$trim` works a chunk at a time and `$join` adds up the
 * length first and refuses a text over the limit before building it.
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

/** $length(text): the number of characters. */
function length(this: Focus, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  return andThen(walk(this, text, Infinity), ({ points }) => points);
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
  return andThen(walk(this, text, Infinity), ({ points }) => {
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
    return andThen(walk(this, text, from), ({ offset: begin }) => andThen(walk(this, text, to), ({ offset: finish }) => text.slice(begin, finish)));
  });
}

/** No surrogate in `text`: each UTF-16 unit is one character. */
function withoutSurrogates(text: string): boolean {
  for (let offset = 0; offset < text.length; offset++) {
    const unit = text.charCodeAt(offset);
    if (unit >= 0xd800 && unit <= 0xdfff) return false;
  }
  return true;
}

function tooLongFor(focus: Focus | undefined, units: number): boolean {
  const limit = focus?.options?.maxTextLength;
  return typeof limit === 'number' && limit > 0 && units > limit;
}

/** $pad(text, width, char?): `char` repeated to |width| characters in all, after the text (before it for a negative width). */
function pad(this: Focus, text: string | undefined, width: number, char?: string): unknown {
  if (text === undefined) return undefined;
  const filler = char === undefined || char.length === 0 ? ' ' : char;
  const target = Math.abs(Math.trunc(width));
  // The usual call (`$pad($string(n), -6, "0")` on every line): short texts without surrogates, whose
  // characters are their units, so nothing needs walking and all fits in one slice.
  const small = target <= UNITS_PER_SLICE && text.length <= UNITS_PER_SLICE && filler.length <= UNITS_PER_SLICE;
  if (small && withoutSurrogates(text) && withoutSurrogates(filler)) return padUnits(this, text, width, target, filler);
  return andThen(walk(this, text, Infinity), ({ points }) => {
    const missing = target - points;
    if (!(missing > 0)) return text;
    // JSONata's `new Array(missing + 1)` for an infinite width.
    if (!Number.isFinite(missing)) throw new RangeError('Invalid array length');
    const limit = this?.options?.maxTextLength;
    const tooLong = (units: number): boolean => tooLongFor(this, units);
    // Every character is at least one unit: refused before anything is built.
    if (tooLong(text.length + missing)) throw textTooLong(text.length + missing, limit as number);
    return andThen(walk(this, filler, Infinity), ({ points: fillerPoints }) => {
      // JSONata repeats the filler, then keeps the first `missing` characters of the whole. Copies joined
      // end to start can pair a high surrogate with a low one, so a copy can add one character less.
      const joins = isHigh(filler.charCodeAt(filler.length - 1)) && isLow(filler.charCodeAt(0));
      const copies = joins ? Math.ceil(missing / Math.max(fillerPoints - 1, 1)) + 1 : Math.ceil(missing / fillerPoints);
      const repeated = filler.repeat(copies);
      return andThen(walk(this, repeated, missing), ({ offset }) => {
        const padding = repeated.slice(0, offset);
        if (tooLong(text.length + padding.length)) throw textTooLong(text.length + padding.length, limit as number);
        return width > 0 ? text + padding : padding + text;
      });
    });
  });
}

/** $pad of a text and a filler whose units are characters: the same answers and errors as the walk's. */
function padUnits(focus: Focus | undefined, text: string, width: number, target: number, filler: string): string {
  const missing = target - text.length;
  if (missing <= 0) return text;
  if (tooLongFor(focus, target)) throw textTooLong(target, focus?.options?.maxTextLength as number);
  const padding = filler.repeat(Math.ceil(missing / filler.length)).slice(0, missing);
  return width > 0 ? text + padding : padding + text;
}

/** JSONata's whitespace for $trim: runs become one space. */
const WHITESPACE = /[ \t\n\r]+/gm;

function isWhitespace(unit: number): boolean {
  return unit === 0x20 || unit === 0x09 || unit === 0x0a || unit === 0x0d;
}

/** $trim(text): JSONata's replace of whitespace runs by one space, a chunk at a time, then one space off each end. */
function trim(this: Focus, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  let offset = 0;
  let result = '';
  const work = (): boolean => {
    const end = Math.min(text.length, offset + UNITS_PER_SLICE);
    const part = text.slice(offset, end).replace(WHITESPACE, ' ');
    // V8 answers a replace of many matches as a rope, a piece per match: read once, each chunk is made
    // flat now. Left as ropes, 60 MB with ten million runs held 900 MB and took 1.5 s to flatten in one
    // step when the result was first read.
    part.charCodeAt(0);
    // A run cut by the chunk's start already gave its space at the end of the result: one run, one space.
    const runGoesOn = offset > 0 && isWhitespace(text.charCodeAt(offset - 1)) && isWhitespace(text.charCodeAt(offset));
    result += runGoesOn ? part.slice(1) : part;
    offset = end;
    return offset >= text.length;
  };
  return drive(this, work, () => {
    if (result.charAt(0) === ' ') result = result.substring(1);
    if (result.charAt(result.length - 1) === ' ') result = result.substring(0, result.length - 1);
    return result;
  });
}

/** $join(texts, separator?): the length added up first (refused past the text limit), then joined a slice at a time. */
function join(this: Focus, texts: readonly string[] | undefined, separator = ''): unknown {
  if (texts === undefined) return undefined;
  const limit = this?.options?.maxTextLength;
  const most = typeof limit === 'number' && limit > 0 ? limit : Infinity;
  let index = 0;
  let length = 0;
  let result = '';
  const measure = (): boolean => {
    const end = Math.min(texts.length, index + CHECK_EVERY);
    for (; index < end; index++) {
      const text: unknown = texts[index];
      length += (typeof text === 'string' ? text.length : 0) + (index > 0 ? separator.length : 0);
    }
    if (length > most) throw textTooLong(length, most);
    return index >= texts.length;
  };
  let joined = 0;
  const build = (): boolean => {
    const end = Math.min(texts.length, joined + CHECK_EVERY);
    result += (joined > 0 ? separator : '') + texts.slice(joined, end).join(separator);
    joined = end;
    return joined >= texts.length;
  };
  return andThen(drive(this, measure, () => undefined), () => drive(this, build, () => result));
}

export const TEXT_BUILTINS = [
  { name: 'trim', signature: '<s-:s>', implementation: trim },
  { name: 'join', signature: '<a<s>s?:s>', implementation: join },
  { name: 'length', signature: '<s-:n>', implementation: length },
  { name: 'substring', signature: '<s-nn?:s>', implementation: substring },
  { name: 'pad', signature: '<s-ns?:s>', implementation: pad },
] as const;
