import { describe, expect, it } from 'vitest';
import { COLUMN_TYPES, columnConverter } from './column-types';

function convert(type: string, text: string): unknown {
  const converter = columnConverter(type);
  if (!converter) throw new Error(`no type ${type}`);
  try {
    return converter(text);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

describe('column types', () => {
  it('integer', () => {
    expect(convert('integer', ' 17 ')).toBe(17);
    expect(convert('integer', '-3')).toBe(-3);
    expect(convert('integer', 'abc')).toBe('error: "abc" is not a whole number');
    expect(convert('integer', '1.5')).toBe('error: "1.5" is not a whole number');
    expect(convert('integer', '99999999999999999999')).toBe('error: "99999999999999999999" is too large for a whole number');
  });

  it('number and decimal-comma', () => {
    expect(convert('number', '12.5')).toBe(12.5);
    expect(convert('number', '1e3')).toBe(1000);
    expect(convert('number', '12,5')).toMatch(/is not a number \(write it like 12.5/);
    expect(convert('decimal-comma', '1.234,5')).toBe(1234.5);
    expect(convert('decimal-comma', '12,5')).toBe(12.5);
    expect(convert('decimal-comma', '7')).toBe(7);
    expect(convert('decimal-comma', '1,2,3')).toMatch(/decimal comma/);
  });

  it('boolean', () => {
    expect([convert('boolean', 'TRUE'), convert('boolean', 'no'), convert('boolean', '1')]).toEqual([true, false, true]);
    expect(convert('boolean', 'maybe')).toMatch(/is not true or false/);
  });

  it('date, with or without a named format', () => {
    expect(convert('date', '2026-12-15')).toBe('2026-12-15T00:00:00Z');
    expect(convert('date', '15.12.2026')).toBe('2026-12-15T00:00:00Z');
    expect(convert('date:MM/DD/YYYY', '12/15/2026')).toBe('2026-12-15T00:00:00Z');
    expect(convert('date:DD.MM.YYYY', '31.02.2026')).toBe('error: "31.02.2026" is not a calendar date');
    expect(convert('date', '12/01/2026')).toMatch(/name its format/);
  });

  it('contract enums by name or number', () => {
    expect(convert('enum:UnitOfMeasure', 'Kilogram')).toBe(4);
    expect(convert('enum:UnitOfMeasure', '4')).toBe(4);
    expect(convert('enum:RequestType', 'PlaceItem')).toBe(2);
    expect(convert('enum:UnitOfMeasure', 'Kilo')).toMatch(/^error: "Kilo" is not a UnitOfMeasure \(known: Piece, Meter/);
    expect(convert('enum:UnitOfMeasure', '99')).toMatch(/is not a UnitOfMeasure/);
  });

  it('knows every listed type and no other', () => {
    for (const type of COLUMN_TYPES) expect(columnConverter(type)).toBeTypeOf('function');
    expect(columnConverter('float')).toBeUndefined();
  });
});
