import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression } from './compile';
import { foldLiteralObjects } from './constant-objects';

const json = (value: unknown) => JSON.stringify(value);

describe('inline lookup tables are built once', () => {
  const lookup = "function($c) { { 'PCE': 'Piece', 'KG': 'Kilogram', 'X': true, 'N': null, 'Z': -1 }.$lookup($, $c) }";

  it('answers exactly as JSONata does without folding', async () => {
    const source = `($unit := ${lookup}; lines.{ "u": $unit(code), "t": { "fixed": 1, "also": "x" } })`;
    const input = { lines: [{ code: 'KG' }, { code: 'PCE' }, { code: 'X' }, { code: 'N' }, { code: 'Z' }, { code: 'nope' }] };
    const plain = await jsonata(source).evaluate(input);
    const folded = await compileExpression(source).evaluate(input);
    expect(json(folded)).toBe(json(plain));
    expect(json(folded)).toBe('[{"u":"Kilogram","t":{"fixed":1,"also":"x"}},{"u":"Piece","t":{"fixed":1,"also":"x"}},{"u":true,"t":{"fixed":1,"also":"x"}},{"u":null,"t":{"fixed":1,"also":"x"}},{"u":-1,"t":{"fixed":1,"also":"x"}},{"t":{"fixed":1,"also":"x"}}]');
  });

  it('folds literal tables, also inside functions, into one frozen object each', async () => {
    const expression = jsonata(`($f := ${lookup}; [$f('KG'), { 'a': 1 }])`);
    const constants = foldLiteralObjects(expression.ast());
    expect([...constants.values()]).toEqual([{ PCE: 'Piece', KG: 'Kilogram', X: true, N: null, Z: -1 }, { a: 1 }]);
    expect([...constants.values()].every((value) => Object.isFrozen(value))).toBe(true);
    // The tree JSONata evaluates now reads variables: the same object comes back on every evaluation.
    for (const [name, value] of constants) expression.assign(name, value);
    const [first, second] = [await expression.evaluate({}), await expression.evaluate({})] as unknown[][];
    expect(first[1]).toBe(second[1]);
  });

  it('leaves alone what is not a plain literal table', () => {
    for (const source of [
      "{ 'a': x }", // a value read from the input
      "{ 'a': 1 }", // the whole expression: its root node is JSONata's own
      "[{ 'a': [1] }]", // a nested array
      "[{ 'a': { 'b': 1 } }]", // a nested object: the inner one is folded, the outer one reads it
      "[{ x: 1 }]", // a key read from the input
      "[{ 'a': 1, 'a': 2 }]", // duplicate keys: JSONata's own error must stay
      "[{ 'a': 1 }[0]]", // a predicate on the constructor
      "[{}]", // nothing to save
    ]) {
      const expression = jsonata(source);
      const folded = [...foldLiteralObjects(expression.ast()).values()];
      if (source.includes("'b'")) expect(folded).toEqual([{ b: 1 }]);
      else expect(folded, source).toEqual([]);
    }
  });

  it('keeps JSONata\'s error for duplicate keys', async () => {
    await expect(compileExpression("[{ 'a': 1, 'a': 2 }]").evaluate({})).rejects.toMatchObject({ code: 'D1009' });
  });
});
