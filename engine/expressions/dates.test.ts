import { describe, expect, it } from 'vitest';
import { toIsoDateTime } from './dates';

describe('toIsoDateTime', () => {
  it.each([
    ['2026-12-01', undefined, '2026-12-01T00:00:00Z'],
    ['01.12.2026', undefined, '2026-12-01T00:00:00Z'],
    ['1.2.2026', 'DD.MM.YYYY', '2026-02-01T00:00:00Z'],
    ['20261201', undefined, '2026-12-01T00:00:00Z'],
    ['12/01/2026', 'MM/DD/YYYY', '2026-12-01T00:00:00Z'],
    ['12/01/2026', 'DD/MM/YYYY', '2026-01-12T00:00:00Z'],
    ['2026-12-01 14:30', undefined, '2026-12-01T14:30:00Z'],
    ['2026-12-01T14:30:05Z', undefined, '2026-12-01T14:30:05Z'],
    ['2026-12-01T14:30:05+01:00', undefined, '2026-12-01T14:30:05+01:00'],
    ['/Date(1764547200000)/', undefined, '2025-12-01T00:00:00.000Z'],
  ])('reads %s (%s)', (value, format, expected) => {
    expect(toIsoDateTime(value, format)).toBe(expected);
  });

  it('reads epoch milliseconds', () => {
    expect(toIsoDateTime(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('gives nothing for missing values, so optional fields disappear', () => {
    expect(toIsoDateTime(undefined)).toBeUndefined();
    expect(toIsoDateTime(null)).toBeUndefined();
    expect(toIsoDateTime('')).toBeUndefined();
  });

  it('refuses ambiguous day/month order unless the format is named', () => {
    expect(() => toIsoDateTime('12/01/2026')).toThrow(/name its format/);
  });

  it('refuses dates that do not exist and text that is no date', () => {
    expect(() => toIsoDateTime('2026-02-30')).toThrow(/not a calendar date/);
    expect(() => toIsoDateTime('31.04.2026')).toThrow(/not a calendar date/);
    expect(() => toIsoDateTime('tomorrow')).toThrow(/cannot read a date/);
    expect(() => toIsoDateTime('2026-12-01', 'DD.MM.YYYY')).toThrow(/does not match/);
    expect(() => toIsoDateTime('2026-12-01', 'YYYY')).toThrow(/unknown date format/);
  });
});
