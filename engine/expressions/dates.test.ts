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
    ['2026-12-01T14:30:05+01:00', undefined, '2026-12-01T13:30:05Z'],
    ['2026-12-01T14:30:05+0100', undefined, '2026-12-01T13:30:05Z'],
    ['2026-12-01T14:30:05.987Z', undefined, '2026-12-01T14:30:05Z'],
    ['/Date(1764547200000)/', undefined, '2025-12-01T00:00:00Z'],
    ['/Date(1764547200000+0100)/', undefined, '2025-12-01T00:00:00Z'],
  ])('reads %s (%s)', (value, format, expected) => {
    expect(toIsoDateTime(value, format)).toBe(expected);
  });

  it('reads epoch milliseconds', () => {
    expect(toIsoDateTime(0)).toBe('1970-01-01T00:00:00Z');
    expect(toIsoDateTime(1764547200123)).toBe('2025-12-01T00:00:00Z');
  });

  it('gives one form whatever the input: UTC, whole seconds, Z', () => {
    const inputs = ['2026-12-01', '01.12.2026', '20261201', '2026-12-01 00:00', '2026-12-01T01:00:00+01:00', '/Date(1764547200000)/', 1764547200000];
    const forms = inputs.map((input) => toIsoDateTime(input));
    for (const form of forms) expect(form).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(new Set(forms.slice(0, 5))).toEqual(new Set(['2026-12-01T00:00:00Z']));
  });

  it('reads values without an offset as local times of an IANA zone, daylight saving included', () => {
    expect(toIsoDateTime('2026-12-01 08:00', undefined, 'Europe/Berlin')).toBe('2026-12-01T07:00:00Z');
    expect(toIsoDateTime('2026-07-01T08:00', null, 'Europe/Berlin')).toBe('2026-07-01T06:00:00Z');
    expect(toIsoDateTime('01.12.2026', 'DD.MM.YYYY', 'Europe/Berlin')).toBe('2026-11-30T23:00:00Z');
    expect(toIsoDateTime('2026-12-01', undefined, 'America/Chicago')).toBe('2026-12-01T06:00:00Z');
    // An offset the value carries, and absolute timestamps, win over the zone.
    expect(toIsoDateTime('2026-12-01T08:00:00Z', undefined, 'Europe/Berlin')).toBe('2026-12-01T08:00:00Z');
    expect(toIsoDateTime('/Date(1764547200000)/', undefined, 'Asia/Tokyo')).toBe('2025-12-01T00:00:00Z');
  });

  it('remembers a value read without format or zone apart from the same value read with them', () => {
    // The plain call's answers are kept by the value alone: the same text with a zone or format is another answer.
    for (let round = 0; round < 2; round++) {
      expect(toIsoDateTime('2026-07-01 08:00')).toBe('2026-07-01T08:00:00Z');
      expect(toIsoDateTime('2026-07-01 08:00', null)).toBe('2026-07-01T08:00:00Z');
      expect(toIsoDateTime('2026-07-01 08:00', null, 'Europe/Berlin')).toBe('2026-07-01T06:00:00Z');
      expect(toIsoDateTime('2026-07-01 08:00', undefined, 'America/Chicago')).toBe('2026-07-01T13:00:00Z');
      expect(toIsoDateTime('01.07.2026', 'DD.MM.YYYY', 'Europe/Berlin')).toBe('2026-06-30T22:00:00Z');
      expect(toIsoDateTime('01.07.2026')).toBe('2026-07-01T00:00:00Z');
    }
  });

  it('refuses an unknown zone with a message naming it', () => {
    expect(() => toIsoDateTime('2026-12-01', undefined, 'Europe/Atlantis')).toThrow(/unknown time zone "Europe\/Atlantis"; give an IANA name/);
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
    expect(() => toIsoDateTime('2026-12-01T25:00')).toThrow(/not a calendar date and time/);
    expect(() => toIsoDateTime('2026')).toThrow(/cannot read a date/);
    expect(() => toIsoDateTime('2026-12')).toThrow(/cannot read a date/);
    expect(() => toIsoDateTime('2026-12-01', 'DD.MM.YYYY')).toThrow(/does not match/);
    expect(() => toIsoDateTime('2026-12-01', 'YYYY')).toThrow(/unknown date format/);
  });
});
