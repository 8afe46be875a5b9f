/**
 * The contract's `date-time` (a time zone required) and `iso-date-time` (a time zone optional) formats,
 * with the answers of ajv-formats' full formats, in one regular expression. ajv-formats splits the text
 * at its T (a list and two more texts per value) and matches date and time apart; every date of every
 * work order of a list answer is checked, and that was most of the output check's own time after AJV's.
 * date-time-format.test.ts compares the two on valid, invalid and edge values.
 */

/** date `T` (or t, or any white space, as ajv-formats' split) time, then an optional zone. */
const DATE_TIME = /^(\d\d\d\d)-(\d\d)-(\d\d)[t\s](\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** RFC 3339 full-date and partial-time with time-offset, a leap second allowed only at 23:59 UTC. */
export function dateTimeFormat(strictTimeZone: boolean): (text: string) => boolean {
  return (text) => {
    const found = DATE_TIME.exec(text);
    if (!found) return false;
    const month = +found[2]!;
    const day = +found[3]!;
    if (!(month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(+found[1]!) ? 29 : DAYS[month]!))) return false;
    const hour = +found[4]!;
    const minute = +found[5]!;
    const second = +found[6]!;
    const zone = found[7];
    const sign = found[8] === '-' ? -1 : 1;
    const zoneHours = +(found[9] || 0);
    const zoneMinutes = +(found[10] || 0);
    if (zoneHours > 23 || zoneMinutes > 59 || (strictTimeZone && !zone)) return false;
    if (hour <= 23 && minute <= 59 && second < 60) return true;
    // A leap second: 23:59:60 in UTC.
    const utcMinute = minute - zoneMinutes * sign;
    const utcHour = hour - zoneHours * sign - (utcMinute < 0 ? 1 : 0);
    return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
  };
}
