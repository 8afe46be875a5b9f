/**
 * Dates as ERPs write them, turned into the ISO 8601 date-time the contract wants.
 * Date-only values become midnight UTC; values with a time but no zone are read as UTC, so the same
 * file gives the same answer on every server whatever its local time zone.
 */

const FORMATS: Record<string, RegExp> = {
  'YYYY-MM-DD': /^(?<y>\d{4})-(?<m>\d{2})-(?<d>\d{2})$/,
  'DD.MM.YYYY': /^(?<d>\d{1,2})\.(?<m>\d{1,2})\.(?<y>\d{4})$/,
  'DD/MM/YYYY': /^(?<d>\d{1,2})\/(?<m>\d{1,2})\/(?<y>\d{4})$/,
  'MM/DD/YYYY': /^(?<m>\d{1,2})\/(?<d>\d{1,2})\/(?<y>\d{4})$/,
  YYYYMMDD: /^(?<y>\d{4})(?<m>\d{2})(?<d>\d{2})$/,
};

// Formats that cannot be confused with another, tried when the mapping names none. `12/01/2026` is
// deliberately absent: day-first and month-first differ, so the mapping must say which it means.
const UNAMBIGUOUS = ['YYYY-MM-DD', 'DD.MM.YYYY', 'YYYYMMDD'];

const DATE_TIME = /^(?<y>\d{4})-(?<m>\d{2})-(?<d>\d{2})[T ](?<H>\d{2}):(?<M>\d{2})(?::(?<S>\d{2})(?<f>\.\d+)?)?(?<z>Z|[+-]\d{2}:?\d{2})?$/;
const MS_JSON_DATE = /^\/Date\((?<ms>-?\d+)(?<z>[+-]\d{4})?\)\/$/;

function fromParts(y: number, m: number, d: number, original: string): string {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
    throw new Error(`"${original}" is not a calendar date`);
  }
  return date.toISOString().replace('.000Z', 'Z');
}

function parseWithFormat(text: string, format: string): string | undefined {
  const pattern = FORMATS[format];
  if (!pattern) throw new Error(`unknown date format "${format}"; use one of ${Object.keys(FORMATS).join(', ')}`);
  const groups = pattern.exec(text)?.groups;
  return groups ? fromParts(Number(groups.y), Number(groups.m), Number(groups.d), text) : undefined;
}

export function toIsoDateTime(value: unknown, format?: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${value} is not a timestamp`);
    return new Date(value).toISOString();
  }
  if (typeof value !== 'string') throw new Error(`cannot read a date from ${JSON.stringify(value)}`);
  const text = value.trim();
  if (format !== undefined) {
    const parsed = parseWithFormat(text, format);
    if (parsed === undefined) throw new Error(`"${text}" does not match the date format ${format}`);
    return parsed;
  }
  const dateTime = DATE_TIME.exec(text)?.groups;
  if (dateTime) {
    const zone = dateTime.z ?? 'Z';
    const iso = `${dateTime.y}-${dateTime.m}-${dateTime.d}T${dateTime.H}:${dateTime.M}:${dateTime.S ?? '00'}${dateTime.f ?? ''}${zone}`;
    const parsed = new Date(iso.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    if (Number.isNaN(parsed.getTime())) throw new Error(`"${text}" is not a valid date-time`);
    fromParts(Number(dateTime.y), Number(dateTime.m), Number(dateTime.d), text);
    return zone === 'Z' ? parsed.toISOString().replace('.000Z', 'Z') : iso;
  }
  const msJson = MS_JSON_DATE.exec(text)?.groups;
  if (msJson) return new Date(Number(msJson.ms)).toISOString();
  for (const candidate of UNAMBIGUOUS) {
    const parsed = parseWithFormat(text, candidate);
    if (parsed !== undefined) return parsed;
  }
  throw new Error(`cannot read a date from "${text}"; name its format, e.g. $isoDateTime(value, 'MM/DD/YYYY')`);
}

export const DATE_FORMATS = Object.keys(FORMATS);
