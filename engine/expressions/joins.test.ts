import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type CompiledExpression } from './compile';
import { comparedWithTheClockStill, describeValue } from '../../test/support/jsonata-values';
import { workOrdersInput, WORK_ORDERS_FUNCTIONS, WORK_ORDERS_OUTPUT } from '../../bench/lib/work-orders';

/**
 * Joins (fast-path/joins.ts): `list[key = outer]` answered through an index built once per evaluation
 * must give the interpreter's items in the interpreter's order, whatever the keys are: texts and numbers
 * that look alike, booleans, null, lists and objects (deep equality), missing keys.
 */
comparedWithTheClockStill();

async function outcome(expression: CompiledExpression, input: unknown, bindings: Record<string, unknown>): Promise<unknown> {
  try {
    return { value: describeValue(await expression.evaluate(structuredClone(input), structuredClone(bindings))) };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

const key = fc.oneof(
  fc.constantFrom('1', 1, '01', 0, -0, true, false, null, 'a', ''),
  fc.array(fc.constantFrom(1, '1', 2), { maxLength: 2 }),
  fc.constantFrom({ a: 1 }, { a: '1' }, []),
);
const item = fc.record({ id: key, order_id: fc.oneof(key, fc.array(key, { maxLength: 2 })), qty: fc.integer({ min: 0, max: 9 }) }, { requiredKeys: ['qty'] });

const JOINS = [
  '$lines[order_id[0] = $o.id]',
  '$lines[order_id = $o.id].qty',
  '$lines[$o.id = id]',
  '$lines[id = "1"]',
  '$lines[id = 1]',
  '$lines[id = null]',
  'calls.lines.items[order_id[0] = $o.id]',
  '$orders.( $o := $; $lines[order_id[0] = $o.id].qty )',
  '$map($orders, function($o) { $count($lines[id = $o.id]) })',
  '$filter($lines, function($l) { $l.id = $o.id })',
  '$filter($lines, function($l) { $l.order_id[0] = $o.id })',
  '$filter($lines, function($l) { $o.id = $l.id }).qty',
  '$orders.( $o := $; $filter($lines, function($l) { $l.id = $o.id }) )',
  '$filter(calls.lines.items, function($l) { $l.order_id = $o.id })',
  '$lines[order_id[0] = $o.id and qty > 3]',
  '$lines[id = $o.id and qty > 3 and qty < 8].qty',
  '$lines[qty > 3 and id = $o.id]',
  '$lines[id = $o.id and $l.qty]',
];

/** The same join written three ways: a filter, $filter with a function, the function's sides swapped. */
const FILTER_FORMS = [
  ['$lines[order_id[0] = $o.id]', '$filter($lines, function($l) { $l.order_id[0] = $o.id })', '$filter($lines, function($l) { $o.id = $l.order_id[0] })'],
  ['$lines[id = $o.id].qty', '$filter($lines, function($v) { $v.id = $o.id }).qty', '$filter($lines, function($v) { $o.id = $v.id }).qty'],
  ['$orders.( $o := $; $lines[id = $o.id] )', '$orders.( $o := $; $filter($lines, function($l) { $l.id = $o.id }) )', '$orders.( $o := $; $filter($lines, function($l) { $o.id = $l.id }) )'],
];

describe('joins', () => {
  it('give the interpreter\'s items in its order for any keys (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 0, maxLength: 24 }), fc.array(fc.record({ id: key }), { maxLength: 4 }), fc.constantFrom(...JOINS), async (lines, orders, source) => {
        const bindings = { lines, orders, o: orders[0] ?? { id: 1 } };
        const input = { calls: { lines: { items: lines } } };
        const compiled = compileExpression(source);
        const interpreter = compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false });
        expect(compiled.fastPath).toBe(true);
        expect({ source, answer: await outcome(compiled, input, bindings) }).toEqual({ source, answer: await outcome(interpreter, input, bindings) });
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('$filter with a function comparing a key with an outer value gives the filter\'s items, in order (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 8, maxLength: 40 }), fc.array(fc.record({ id: key }), { minLength: 1, maxLength: 4 }), fc.constantFrom(...FILTER_FORMS), async (lines, orders, forms) => {
        const bindings = { lines, orders, o: orders[0] };
        const answers = await Promise.all(forms.map((source) => outcome(compileExpression(source), {}, bindings)));
        const interpreted = await outcome(compileExpression(forms[0], DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), {}, bindings);
        for (const [index, answer] of answers.entries()) expect({ source: forms[index], answer }).toEqual({ source: forms[index], answer: interpreted });
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('answer $filter with such a function through the index: 1,000 orders over 10,000 lines stay on the compiled path', async () => {
    const lines = Array.from({ length: 10_000 }, (_, n) => ({ order_id: (n * 7919) % 1000, qty: n % 9 }));
    const orders = Array.from({ length: 1000 }, (_, id) => ({ id }));
    const source = '$orders.( $o := $; $sum($filter($lines, function($l) { $l.order_id = $o.id }).qty) )';
    const compiled = compileExpression(source);
    // Written as code that asks the join index (codegen/filters.ts), not handed to a closure.
    expect(compiled.explain().delegated).toEqual([]);
    expect(compiled.explain().code).toContain('filterJoined(');
    const sums = (await compiled.evaluate({}, { lines, orders })) as number[];
    // Without the index, ten million calls of the function outlast the fast path's slice and the interpreter answers.
    expect(compiled.stats).toEqual({ fast: 1, fallback: 0, interpreter: 0 });
    expect(sums).toHaveLength(1000);
    expect(sums.reduce((total, sum) => total + sum, 0)).toBe(lines.reduce((total, line) => total + line.qty, 0));
  });

  it('are written as code: the key, the outer value and the conditions after `and` are generated functions, not closures', () => {
    const cases: [string, RegExp][] = [
      ['( $o := orders[0]; $l := lines; $l[order_id[0] = $o.id and qty > 3 and qty < 8] )', /const J\d+ = \{ key: f\d+, outer: f\d+, rest: f\d+ \};[\s\S]*joinedItems\(J\d+,/],
      ['( $o := orders[0]; $l := lines; $l[id = $o.id] )', /const J\d+ = \{ key: f\d+, outer: f\d+, rest: undefined \};/],
      ['( $o := orders[0]; $filter(lines, function($l) { $l.order_id[0] = $o.id }) )', /const J\d+ = \{ key: f\d+, outer: f\d+ \};[\s\S]*filterJoined\(J\d+,/],
    ];
    for (const [source, written] of cases) {
      const explained = compileExpression(source).explain();
      expect([source, explained.runs, explained.delegated]).toEqual([source, 'compiled', []]);
      expect(explained.code).toMatch(written);
      // No join object is handed over as a constant of closures.
      expect(explained.code).not.toMatch(/(joinedItems|filterJoined)\(K\[/);
    }
  });

  it('answer a GET /WorkOrders output with a filter and a lookup inside shared functions on the compiled path', async () => {
    const input = workOrdersInput(41, 7, 60);
    const compiled = compileExpression(WORK_ORDERS_OUTPUT, DEFAULT_EXPRESSION_LIMITS, WORK_ORDERS_FUNCTIONS);
    const interpreter = compileExpression(WORK_ORDERS_OUTPUT, DEFAULT_EXPRESSION_LIMITS, WORK_ORDERS_FUNCTIONS, { fastPath: false });
    const expected = await interpreter.evaluate(structuredClone(input));
    expect(JSON.stringify(await compiled.evaluate(structuredClone(input)))).toBe(JSON.stringify(expected));
    expect(compiled.stats).toEqual({ fast: 1, fallback: 0, interpreter: 0 });
    expect(compiled.explain().runs).toBe('compiled');
    expect((expected as unknown[]).length).toBe(41);
  });
});
