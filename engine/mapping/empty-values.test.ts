import { describe, expect, it } from 'vitest';
import { withoutEmptyValues } from './empty-values';

describe('withoutEmptyValues', () => {
  it('drops the fields holding an empty value at any depth, keeps list items, leaves the answer as it was', () => {
    const answer = Object.freeze({
      name: 'SO-1', note: false, partner: Object.freeze([7, 'Acme']),
      lines: Object.freeze([Object.freeze({ qty: 0, lot: false, date: '0001-01-01', tags: Object.freeze([false, 'x', null]) }), false, null]),
      nothing: null, flag: true,
    });
    expect(withoutEmptyValues(answer, [false, '0001-01-01'])).toEqual({
      name: 'SO-1', partner: [7, 'Acme'], lines: [{ qty: 0, tags: [false, 'x', null] }, false, null], nothing: null, flag: true,
    });
    expect(withoutEmptyValues(answer, [null, 0])).toEqual({
      name: 'SO-1', note: false, partner: [7, 'Acme'], lines: [{ lot: false, date: '0001-01-01', tags: [false, 'x', null] }, false, null], flag: true,
    });
  });

  it('answers a value that is not an object, or no empty values, as it is', () => {
    const answer = { a: false };
    expect(withoutEmptyValues(answer, [])).toBe(answer);
    expect(withoutEmptyValues(false, [false])).toBe(false);
    expect(withoutEmptyValues(['0001-01-01'], ['0001-01-01'])).toEqual(['0001-01-01']);
  });

  it('keeps an answer\'s field named __proto__ as a field of the copy, not as its prototype', () => {
    const answer = JSON.parse('{"__proto__": {"admin": true}, "note": false, "id": 7}') as unknown;
    const read = withoutEmptyValues(answer, [false]) as Record<string, unknown>;
    expect(Object.keys(read)).toEqual(['__proto__', 'id']);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(read.admin).toBeUndefined();
    expect(JSON.stringify(read)).toBe('{"__proto__":{"admin":true},"id":7}');
  });

  it('reads a null-prototype object (the XML view) like any other', () => {
    const view = Object.assign(Object.create(null) as Record<string, unknown>, { Date: '0001-01-01', No: 'SO-1' });
    expect(withoutEmptyValues({ view }, ['0001-01-01'])).toEqual({ view: { No: 'SO-1' } });
  });

  it('copies only the objects and lists on the way to a removed field; the rest is the answer itself', () => {
    const pair = Object.freeze([7, 'Acme']);
    const clean = Object.freeze({ id: 2, partner: pair, tags: Object.freeze(['a', 'b']) });
    const dirty = Object.freeze({ id: 3, partner: pair, note: false, nested: Object.freeze({ lot: false, qty: 1 }) });
    const answer = Object.freeze({ result: Object.freeze([clean, dirty]), count: 2 });
    const read = withoutEmptyValues(answer, [false]) as { result: [unknown, { partner: unknown; nested: unknown }] };
    expect(read).toEqual({ result: [{ id: 2, partner: [7, 'Acme'], tags: ['a', 'b'] }, { id: 3, partner: [7, 'Acme'], nested: { qty: 1 } }], count: 2 });
    expect(read).not.toBe(answer);
    expect(read.result[0]).toBe(clean);
    expect(read.result[1].partner).toBe(pair);
    expect(Object.keys(read.result[1])).toEqual(['id', 'partner', 'nested']);
    const untouched = { result: [clean], count: 1 };
    expect(withoutEmptyValues(untouched, [false])).toBe(untouched);
  });
});
