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
