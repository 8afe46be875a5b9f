import { describe, expect, it } from 'vitest';
import { jsonDiff } from './json-diff';

describe('jsonDiff', () => {
  it('finds nothing between equal values', () => {
    expect(jsonDiff({ a: [1, { b: 'x' }], c: null }, { a: [1, { b: 'x' }], c: null })).toEqual([]);
  });

  it('names each changed, new and gone field by its path', () => {
    const old = { data: { number: 'SO-1', lines: [{ qty: 5 }, { qty: 7 }], 'due date': '2026-12-01' } };
    const now = { data: { number: 'SO-1', lines: [{ qty: 6 }], note: 'rush' } };
    expect(jsonDiff(old, now)).toEqual([
      { path: '$.data.lines[0].qty', old: 5, new: 6 },
      { path: '$.data.lines[1]', old: { qty: 7 } },
      { path: '$.data["due date"]', old: '2026-12-01' },
      { path: '$.data.note', new: 'rush' },
    ]);
  });

  it('reports a list that became an object as one difference, and stops at the limit', () => {
    expect(jsonDiff({ a: [1] }, { a: { 0: 1 } })).toEqual([{ path: '$.a', old: [1], new: { 0: 1 } }]);
    expect(jsonDiff(Array.from({ length: 10 }, (_, i) => i), Array.from({ length: 10 }, (_, i) => i + 1), 3)).toHaveLength(3);
  });
});
