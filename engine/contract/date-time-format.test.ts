import { fullFormats } from 'ajv-formats/dist/formats';
import { describe, expect, it } from 'vitest';
import { dateTimeFormat } from './date-time-format';

type Check = (text: string) => boolean;
const theirs = (name: 'date-time' | 'iso-date-time'): Check => (fullFormats[name] as { validate: Check }).validate;

/** Valid texts, edge values and their one-character changes: the ways a value is right or wrong. */
function samples(): string[] {
  const seeds = [
    '2026-11-28T21:55:10Z', '2026-11-28t21:55:10z', '2026-11-28 21:55:10+01:00', '2026-11-28\t21:55:10-0530', '2026-11-28T21:55:10.123456+14',
    '2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2000-02-29T00:00:00Z', '2026-04-31T10:00:00Z', '2026-12-31T23:59:59Z',
    '2026-06-30T23:59:60Z', '2026-06-30T23:59:60+00:00', '2026-06-30T22:59:60-01:00', '2026-07-01T00:59:60+01:00', '2026-06-30T23:59:60', '2026-06-30T12:00:60Z', '2026-06-30T23:59:61Z',
    '2026-13-01T10:00:00Z', '2026-00-10T10:00:00Z', '2026-01-00T10:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:60:00Z', '2026-01-01T10:00:00+24:00', '2026-01-01T10:00:00+23:60',
    '2026-01-01T10:00:00', '2026-01-01', '10:00:00Z', '2026-01-01TT10:00:00Z', '2026-01-01T10:00:00Z\n', ' 2026-01-01T10:00:00Z', '2026-01-01T10:00:00.Z', '2026-01-01T10:00:00ZZ',
    '2026-01-01\u00a010:00:00Z', '2026-01-01\u200810:00:00Z', '2026-01-01T10:00:00+0100', '2026-01-01T10:00:00+01:0', '2026-1-01T10:00:00Z', '', 'T', 'not a date',
  ];
  const alphabet = ['0', '1', '2', '3', '5', '6', '9', '-', ':', '.', 'T', 't', 'Z', 'z', ' ', '+', 'x', '\n', '\u00a0'];
  const all = new Set(seeds);
  for (const seed of seeds) {
    for (let index = 0; index <= seed.length; index++) {
      all.add(seed.slice(0, index) + seed.slice(index + 1));
      for (const char of alphabet) {
        all.add(seed.slice(0, index) + char + seed.slice(index + 1));
        all.add(seed.slice(0, index) + char + seed.slice(index));
      }
    }
  }
  return [...all];
}

describe('dateTimeFormat', () => {
  const texts = samples();

  it('answers as ajv-formats does for date-time (a time zone required) on every sample', () => {
    const ours = dateTimeFormat(true);
    const reference = theirs('date-time');
    const differ = texts.filter((text) => ours(text) !== reference(text));
    expect(differ).toEqual([]);
    expect(texts.filter((text) => reference(text)).length).toBeGreaterThan(200);
    expect(texts.length).toBeGreaterThan(20000);
  });

  it('answers as ajv-formats does for iso-date-time (a time zone optional) on every sample', () => {
    const ours = dateTimeFormat(false);
    const reference = theirs('iso-date-time');
    expect(texts.filter((text) => ours(text) !== reference(text))).toEqual([]);
    expect(ours('2026-06-30T23:59:60')).toBe(true);
    expect(dateTimeFormat(true)('2026-06-30T23:59:60')).toBe(false);
  });
});
