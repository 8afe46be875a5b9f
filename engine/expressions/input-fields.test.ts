import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression } from './compile';
import { CONTEXT_TAKING_BUILTINS } from './fast-path/input-fields';
import { FAST_BUILTINS } from './fast-path/runtime';
import { createPrelude } from './prelude';

/**
 * CompiledExpression.inputFieldsRead: which fields of an object input an expression can read. The
 * files reuse a row expression's result for rows equal on those fields (files/row-results.ts), so a
 * field it misses would give one row another row's value.
 */

const definitions = [
  { name: 'unit', text: "function($code) { { 'PCE': 'Piece', 'KG': 'Kilogram' }.$lookup($, $code) }" },
  { name: 'label', text: 'function() { article & "/" & lot }' },
  { name: 'typed', text: 'function($x)<s-:s> { $x }' },
];
const preludeFor = createPrelude(definitions);
const compile = (source: string, fastPath = true) => compileExpression(source, undefined, preludeFor(source), { fastPath });

const TOLD: readonly (readonly [string, readonly string[]])[] = [
  ['unit', ['unit']],
  ['$unit(unit)', ['unit']],
  ['order.line & "-" & qty', ['order', 'qty']],
  ['qty > 3 ? "many" : "few"', ['qty']],
  ['($n := qty; $n * 2)', ['qty']],
  ['{ "a": article, "b": [lot, 1] }.a', ['article', 'lot']],
  // $lookup takes the context only in the second step, where the context is the literal object.
  ['{ "PCE": 1 }.$lookup($, unit)', []],
  // A function defined at the top reads the row whatever calls it.
  ['$label()', ['article', 'lot']],
  ["'constant'", []],
  ['x.($f := function() { qty }; $f())', ['x']],
];

const NOT_TOLD: readonly string[] = [
  '$', '$.unit', '$$.unit', '$string()', '$uppercase(unit)', '$substring(article, 0, 2)', '$keys($)',
  '$typed(unit)', '*.unit', '**.unit', 'unit[0]', '$now()', '$random()', '$eval("unit")', 'unit ~> $uppercase()',
];

describe('the input fields an expression reads', () => {
  it.each(TOLD)('%s reads %j', (source, fields) => {
    expect(compile(source).inputFieldsRead()).toEqual(fields);
  });

  it.each(NOT_TOLD)('%s may read anything', (source) => {
    expect(compile(source).inputFieldsRead()).toBeUndefined();
  });

  it('is not told for an expression the fast path does not run', () => {
    expect(compile('$unit(unit)', false).inputFieldsRead()).toBeUndefined();
  });

  it('gives the same result for inputs equal on the fields read, whatever else they hold (checked on the interpreter)', async () => {
    const rows = [
      { unit: 'PCE', qty: 5, article: 'A-1', lot: 'L1', order: { line: 10 }, x: { qty: 7 }, other: 'one' },
      { unit: 'PCE', qty: 5, article: 'A-1', lot: 'L1', order: { line: 10 }, x: { qty: 7 }, other: 'two', extra: [1, 2] },
    ];
    for (const [source] of TOLD) {
      const fields = compile(source).inputFieldsRead() ?? [];
      const interpreted = compile(source, false);
      const varied = { ...rows[1] } as Record<string, unknown>;
      // Every field not read gets another value (or goes): the result must not change.
      for (const key of Object.keys(varied)) if (!fields.includes(key)) varied[key] = 'changed';
      const [first, second] = await Promise.all([interpreted.evaluate(rows[0]), interpreted.evaluate(varied)]);
      expect(JSON.stringify(second), source).toBe(JSON.stringify(first));
    }
  });

  it('knows every fast-path built-in whose signature lets the context stand in for an argument', async () => {
    const taking: string[] = [];
    for (const name of FAST_BUILTINS) {
      const fn = (await jsonata(`$${name}`).evaluate({})) as { signature?: { definition?: string } };
      if (fn.signature?.definition?.includes('-')) taking.push(name);
    }
    expect([...CONTEXT_TAKING_BUILTINS].sort()).toEqual(taking.sort());
  });
});
