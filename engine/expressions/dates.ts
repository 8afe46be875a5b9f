import { LRUCache } from 'lru-cache';
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';

/**
 * Dates as ERPs write them, turned into the ISO 8601 date-time the contract wants, always in one form:
 * UTC, whole seconds, `Z`, e.g. `2026-12-01T07:00:00Z` (fractions of a second are dropped: no ERP date
 * the contract carries means them, and one form lets the platform and tests compare text).
 *
 * Luxon reads the values: it checks calendar dates and knows the IANA time zones (from the ICU data
 * Node ships), including their daylight-saving rules, which a hand-written parser would get wrong. A
 * value without an offset (a date, a date-time without zone) is read in `zone` (an IANA name; default
 * UTC, so the same file gives the same answer on every server); an offset the value carries wins.
 */

/** The named formats mappings use, as Luxon tokens (`d` and `M` read one or two digits). */
const FORMATS: Readonly<Record<string, string>> = {
  'YYYY-MM-DD': 'yyyy-MM-dd',
  'DD.MM.YYYY': 'd.M.yyyy',
  'DD/MM/YYYY': 'd/M/yyyy',
  'MM/DD/YYYY': 'M/d/yyyy',
  YYYYMMDD: 'yyyyMMdd',
};

// Speed, for files of 200,000 rows with a date each: Luxon reads a format's tokens and checks a zone
// name (through Intl, ~100 µs) on every call unless given a built parser and a zone object; both are
// made once here. Only valid zone names are kept, so text from requests cannot grow the map beyond
// the IANA list. Results are memoised: a file repeats its few distinct dates on many rows.
type FormatParser = ReturnType<typeof DateTime.buildFormatParser>;
const parsers = new Map<string, FormatParser>();
const zones = new Map<string, Zone>([['UTC', FixedOffsetZone.utcInstance]]);
const results = new LRUCache<string, string>({ max: 10_000 });
// The usual call, `$isoDateTime(value)` with no format and no zone, is looked up by the value itself: V8
// keeps a text's hash on the text, while a key built per call is hashed anew each time (a third of the call).
const plainResults = new LRUCache<string, string>({ max: 10_000 });

/**
 * The locale of every DateTime made here, the parsers' own: without one, luxon asks Intl for the
 * system's locale on its first date, 12 ms of the first request that reads a date. The locale never
 * shows: dates are written from their milliseconds (toIsoDateTime).
 */
const LOCALE = 'en-US';

function parserFor(format: string): FormatParser {
  let parser = parsers.get(format);
  if (!parser) parsers.set(format, (parser = DateTime.buildFormatParser(FORMATS[format], { locale: LOCALE })));
  return parser;
}

function zoneFor(name: string): Zone {
  const known = zones.get(name);
  if (known) return known;
  const problem = timeZoneProblem(name);
  if (problem) throw new Error(problem);
  const zone = IANAZone.create(name);
  zones.set(name, zone);
  return zone;
}

// Formats that cannot be confused with another, tried when the mapping names none. `12/01/2026` is
// deliberately absent: day-first and month-first differ, so the mapping must say which it means.
const UNAMBIGUOUS = ['YYYY-MM-DD', 'DD.MM.YYYY', 'YYYYMMDD'];

// Which texts are read as ISO 8601 date-times: a full date and at least hours and minutes. The rest of
// ISO 8601 (week dates, `2026-12`, a bare `2026`) is not a due date an ERP sends, and stays refused.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const MS_JSON_DATE = /^\/Date\((?<ms>-?\d+)(?:[+-]\d{4})?\)\/$/;

export const DATE_FORMATS = Object.keys(FORMATS);

/** Why `zone` is not a time zone the engine can use, or undefined when it is one. */
export function timeZoneProblem(zone: string): string | undefined {
  return zones.has(zone) || IANAZone.isValidZone(zone) ? undefined : `unknown time zone "${zone}"; give an IANA name such as Europe/Berlin or America/Chicago`;
}

/** Why `format` is not a named date format, or undefined when it is one. */
export function dateFormatProblem(format: string): string | undefined {
  return format in FORMATS ? undefined : `unknown date format "${format}"; use one of ${DATE_FORMATS.join(', ')}`;
}

/** `what` the text should have been: a date-time can also fail on its time (25:00). */
function checked(date: DateTime, text: string, what = 'a calendar date'): string {
  if (!date.isValid) {
    const reason = date.invalidReason === 'unit out of range' ? `is not ${what}` : `is not a valid date-time (${date.invalidExplanation ?? date.invalidReason})`;
    throw new Error(`"${text}" ${reason}`);
  }
  // The instant in whole seconds, written the one way: 2026-12-01T07:00:00Z.
  return new Date(Math.floor(date.toMillis() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function withFormat(text: string, format: string, zone: Zone): DateTime | undefined {
  const problem = dateFormatProblem(format);
  if (problem) throw new Error(problem);
  const date = DateTime.fromFormatParser(text, parserFor(format), { zone, locale: LOCALE });
  // Luxon says "unparsable" when the text has another shape, "unit out of range" for 31.04.
  return date.invalidReason === 'unparsable' ? undefined : date;
}

export function toIsoDateTime(value: unknown, format?: string | null, zone?: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const readIn = zoneFor(zone ?? 'UTC');
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${value} is not a timestamp`);
    return checked(DateTime.fromMillis(value, { zone: FixedOffsetZone.utcInstance, locale: LOCALE }), String(value));
  }
  if (typeof value !== 'string') throw new Error(`cannot read a date from ${JSON.stringify(value)}`);
  const plain = (format === undefined || format === null) && zone === undefined;
  const cache = plain ? plainResults : results;
  const key = plain ? value : `${value}\u0000${format ?? ''}\u0000${zone ?? ''}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const result = read(value.trim(), format, readIn);
  cache.set(key, result);
  return result;
}

function read(text: string, format: string | null | undefined, zone: Zone): string {
  if (format !== undefined && format !== null) {
    const date = withFormat(text, format, zone);
    if (!date) throw new Error(`"${text}" does not match the date format ${format}`);
    return checked(date, text);
  }
  if (ISO_DATE_TIME.test(text)) return checked(DateTime.fromISO(text.replace(' ', 'T'), { zone, locale: LOCALE }), text, 'a calendar date and time');
  const msJson = MS_JSON_DATE.exec(text)?.groups;
  // Microsoft JSON dates count milliseconds since 1970 UTC; the offset after them is informational.
  if (msJson) return checked(DateTime.fromMillis(Number(msJson.ms), { zone: FixedOffsetZone.utcInstance, locale: LOCALE }), text);
  for (const candidate of UNAMBIGUOUS) {
    const date = withFormat(text, candidate, zone);
    if (date) return checked(date, text);
  }
  throw new Error(`cannot read a date from "${text}"; name its format, e.g. $isoDateTime(value, 'MM/DD/YYYY')`);
}
