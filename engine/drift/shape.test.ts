import { describe, expect, it } from 'vitest';
import { departures, emptyShape, learn } from './shape';

function shapeOf(...values: unknown[]) {
  const shape = emptyShape();
  for (const value of values) learn(shape, value);
  return shape;
}

describe('answer shapes', () => {
  const orders = shapeOf(
    { no: 'SO-1', qty: 5, note: 'rush', lines: [{ article: 'A-1', quantity: 2 }] },
    { no: 'SO-2', qty: 7, lines: [{ article: 'A-2', quantity: 1 }, { article: 'A-3', quantity: 4 }] },
  );

  it('lets an answer like the recorded ones pass, with fields the recordings never had or had only sometimes', () => {
    expect(departures(orders, { no: 'SO-3', qty: 1, extra: true, lines: [] })).toEqual([]);
  });

  it('names a field every recording had that is missing, a changed type, and a list that became an object', () => {
    expect(departures(orders, { no: 42, lines: { article: 'A-1', quantity: 2 } })).toEqual([
      { kind: 'type', path: '$.no', expected: 'string', got: 'number' },
      { kind: 'missing', path: '$.qty', expected: 'present', got: 'missing' },
      { kind: 'list-became-object', path: '$.lines', expected: 'array', got: 'object' },
    ]);
    expect(departures(orders, { no: 'SO-4', qty: 1, lines: [{ article: 'A-1' }] })).toEqual([{ kind: 'missing', path: '$.lines[0].quantity', expected: 'present', got: 'missing' }]);
  });

  it('counts a missing field only when the mapping reads it or an object holding it', () => {
    const reads = (key: string) => ['no', 'lines'].includes(key);
    expect(departures(orders, { no: 'SO-5', lines: [{ article: 'A-1' }] }, reads)).toEqual([{ kind: 'missing', path: '$.lines[0].quantity', expected: 'present', got: 'missing' }]);
  });

  it('watches nothing for a call with no recorded answer', () => {
    expect(departures(emptyShape(), 'anything')).toEqual([]);
  });
});
