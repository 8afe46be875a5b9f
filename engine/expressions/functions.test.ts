import { describe, expect, it } from 'vitest';
import { compileExpression } from './compile';

const run = (source: string, input: unknown = {}) => compileExpression(source).evaluate(input);

describe('helper functions', () => {
  it('numbers enum names and names enum numbers', async () => {
    expect(await run("$enumValue('UnitOfMeasure', 'Kilogram')")).toBe(4);
    expect(await run("$enumValue('UnitOfMeasure', 'CubicMeter')")).toBe(13);
    expect(await run("$enumValue('RequestType', 'PlaceItem')")).toBe(2);
    expect(await run("$enumValue('FileType', 'CSV')")).toBe(1);
    expect(await run("$enumName('WorkOrderStatus', 7)")).toBe('CompletedWithCancelations');
  });

  it('refuses unknown enum names loudly, listing the known ones', async () => {
    await expect(run("$enumValue('UnitOfMeasure', 'Kilo')")).rejects.toThrow(/"Kilo" is not a UnitOfMeasure; known: Piece, Meter/);
    await expect(run("$enumValue('Colour', 'Red')")).rejects.toThrow(/unknown enum "Colour"/);
    await expect(run("$enumName('WorkOrderStatus', 9)")).rejects.toThrow(/9 is not a WorkOrderStatus value/);
  });

  it('parses and writes JSON strings (externalData)', async () => {
    expect(await run('$parseJson(x).a', { x: '{"a": [1, 2]}' })).toEqual([1, 2]);
    expect(await run('$parseJson(x)', { x: '' })).toBeUndefined();
    expect(await run('$toJson(v)', { v: { a: 1 } })).toBe('{"a":1}');
    await expect(run('$parseJson(x)', { x: '{oops' })).rejects.toThrow(/text is not JSON/);
  });

  it('encodes and decodes Base64 as UTF-8 text, strictly', async () => {
    expect(await run("$base64FromText('Größe')")).toBe(Buffer.from('Größe').toString('base64'));
    expect(await run('$textFromBase64(b)', { b: Buffer.from('Größe').toString('base64') })).toBe('Größe');
    await expect(run("$textFromBase64('not base64!')")).rejects.toThrow(/not valid Base64/);
  });

  it('turns ERP dates into ISO 8601 date-times', async () => {
    expect(await run("$isoDateTime('30.11.2026')")).toBe('2026-11-30T00:00:00Z');
    expect(await run("$isoDateTime('11/30/2026', 'MM/DD/YYYY')")).toBe('2026-11-30T00:00:00Z');
  });
});
