import fc from 'fast-check';
import jsonata from 'jsonata';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './compile';
import { whenFastFunctionsReady } from './fast-path/runtime';
import { outcome, timedEvaluation } from '../../test/support/jsonata-values';

/**
 * The grouping `list{ key: value }` (group-by.ts): the same answer as JSONata's own (value, markers, key
 * order, error code) on the interpreter and on the fast path; the depth limit counts nesting, not groups;
 * the time limit stops a long grouping and the event loop turns while it runs.
 */

const LIMITS: ExpressionLimits = { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 20_000 };

/** jsonata 2.2.2 alone (no depth limit: with one, it fails at a few hundred groups), the interpreter, the fast path. */
async function expectSame(source: string, input: unknown): Promise<void> {
  // JSONata pushes into an empty list it groups: each run gets its own copy of the input.
  const original = await outcome(() => jsonata(source, { timeout: 20_000, sequence: LIMITS.maxSequence } as jsonata.JsonataOptions).evaluate(structuredClone(input)));
  const interpreted = await outcome(() => compileExpression(source, LIMITS, '', { fastPath: false }).evaluate(structuredClone(input)));
  const fast = await outcome(() => compileExpression(source, LIMITS).evaluate(structuredClone(input)));
  expect(interpreted, `${source} on ${JSON.stringify(input)}`).toEqual(original);
  expect(fast, `${source} on ${JSON.stringify(input)} (fast path)`).toEqual(original);
}

const SOURCES = [
  'l{ k: v }', 'l{ k: $ }', 'l{ k: $count($) }', 'l{ k: v, "x": v }', 'l{ $string(v): k }', 'l{ k: v }.*', 'l[v > 0]{ k: $sum(v) }',
  'l{ k: { $string(v): $count($) } }', 'l.{ k: v }', 'l{ k: v }[]', 'a.l{ k: v }', 'nothing{ "a": 1 }', 'l{ v: k }', '[1..5]{ $string($ % 2): $ }',
  '{ $string(k): v }', '$map(l, function($e) { $e{ k: v } })', 'l^(>v){ k: v }', 'l{ k: l{ k: v } }', '( $d := "-"; l{ k & $d: v } )',
  'l{ k: [v] }', 'l.m{ k: $ }', 'l{ "_jsonata_lambda": 1 }', 'l{ k: $error("no") }', 'l#$i{ k: $i }', 'l.m{ k: %.v }',
];

const record = fc.record({
  k: fc.constantFrom('a', 'b', '1', '0', '10', '__proto__'),
  v: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant([1, 2]), fc.constant(null)),
  m: fc.oneof(fc.constant(undefined), fc.array(fc.record({ k: fc.constantFrom('a', 'b') }), { maxLength: 2 })),
}, { requiredKeys: ['k', 'v'] });

describe('grouping matches JSONata', () => {
  beforeAll(async () => {
    await whenFastFunctionsReady();
  });

  it('keys, values, key order, nesting, sequences and errors', async () => {
    await fc.assert(fc.asyncProperty(fc.array(record, { maxLength: 8 }), async (list) => {
      for (const source of SOURCES) await expectSame(source, { l: list, a: { l: list } });
    }), { numRuns: 60 });
    for (const source of SOURCES) {
      await expectSame(source, { l: [] });
      await expectSame(source, { l: { k: 'a', v: 1 } });
      await expectSame(source, {});
    }
  }, 120_000);

  it('300 and 5,000 rows of distinct keys at the default depth limit (it failed with D1011 at 249)', async () => {
    for (const rows of [300, 5000]) {
      const input = { input: Array.from({ length: rows }, (_, index) => ({ workOrderNumber: `WO-${index}`, externalData: { line: index } })) };
      const grouped = await compileExpression('( $x := input{ workOrderNumber: externalData }; [] )').evaluate(input);
      expect(grouped).toEqual([]);
      await expectSame('input{ workOrderNumber: externalData }', input);
      await expectSame('$count($keys(input{ workOrderNumber: { $string(externalData.line): $ } }))', input);
    }
  }, 60_000);

  it('the depth limit still stops recursion inside a grouping', async () => {
    const source = '( $f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; l{ k: $f(10000) } )';
    await expect(compileExpression(source).evaluate({ l: [{ k: 'a' }] })).rejects.toMatchObject({ code: 'D1011' });
  });
});

describe('grouping under the time limit', () => {
  const timed = (source: string, limits: ExpressionLimits) => timedEvaluation(source, limits);

  /** As guarded-builtins.test.ts: the collection of a large heap, not the grouping, may pause this long (this thread's CPU time). */
  const PAUSE_WITHIN_MS = 1000;

  it('300,000 groups finish with JSONata\'s answer, letting the event loop in', async () => {
    // A depth limit widened under `limits:`, which let JSONata's grouping run: it evaluated every group's
    // value at once, blocking the process for 1 to 2 s here.
    const source = '[1..300000]{ $string($): $ }';
    const run = await timed(source, { ...LIMITS, maxDepth: 1_000_000 });
    const original = await jsonata(source).evaluate({});
    expect(run.result).toEqual(original);
    console.info(`${source}: ${Math.round(run.ms)} ms, longest pause ${Math.round(run.longestPause)} ms`);
    expect(run.longestPause).toBeLessThan(PAUSE_WITHIN_MS);
  }, 60_000);

  it('the time limit stops a grouping of 1,000,000 items', async () => {
    const run = await timed('[1..1000000]{ $string($): $ }', { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 500 });
    expect(run.result).toEqual({ error: 'D1012' });
    expect(run.ms).toBeLessThan(2500); // the 500 ms limit, and a margin for a loaded machine
    expect(run.longestPause).toBeLessThan(PAUSE_WITHIN_MS);
  }, 30_000);
});
