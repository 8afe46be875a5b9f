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

describe('grouping written as code (fast-path/codegen/group-by.ts)', () => {
  beforeAll(async () => {
    await whenFastFunctionsReady();
  });

  // Object constructors over a list (a path's step whose items are lists, a top-level list), with computed,
  // repeated, number, marker and integer-like keys, and no pairs; groupings after a variable and an order-by.
  const WRITTEN = [
    '[[1, 2], [3]].{ "n": $count($), "s": $sum($) }', '{ "n": $count($), "k": k }', '{ $string(k): v }', 'l.[{ k: v, "x": v }]',
    '[[1, 2]].{ "a": $, "a": 2 }', '{ "a": 1, "a": 2 }', '[l].{ v: k }', '[[{ "k": "2" }, { "k": "10" }, { "k": "b" }, { "k": "a" }, { "k": "2" }]].{ k: $count($) }',
    '[[1, 2]].{ "_jsonata_lambda": k }', '[[1, 2]].{}', '[[[1, 2], 3, [4, [5]]]].{ "x": $ }', '[l, l].{ k: $count($) }', '( $m := l; $m{ k: $sum(v) } )',
    '( $m := l; $m[v > 0]{ k: [v] } )', '( $m := l; $m^(>v){ k: $ } )', '[[]].{ "a": $ }', '{ "__proto__": k, "1": v, "b": 3 }',
  ];
  const INPUTS: unknown[] = [
    { l: [{ k: 'a', v: 1 }, { k: 'b', v: 2 }, { k: 'a', v: [3, 4] }, { k: '1', v: null }, { k: '__proto__', v: 5 }], k: 'a', v: 1 },
    [{ k: 'a', v: 1 }, { k: 'b', v: 2 }, { k: 'a', v: 3 }],
    [{ k: 1, v: 2 }],
    { l: [] },
    {},
  ];

  it('gives JSONata\'s answer or error, and no part of it runs as the closures', async () => {
    for (const source of WRITTEN) {
      for (const input of INPUTS) await expectSame(source, input);
      const explained = compileExpression(source, LIMITS).explain();
      expect([source, explained.runs, explained.delegated]).toEqual([source, 'compiled', []]);
    }
    // The usual object of a mapping: written out, its grouping (when the input is a list) written too.
    const object = compileExpression('{ "number": no, "lines": $count(lines) }').explain();
    expect(object.delegated).toEqual([]);
    expect(object.code).toContain('addToGroup(');
  });

  it('one group of 100,000 items is built once, not copied at every item (it outlasted the fast path\'s slice)', async () => {
    const input = { l: Array.from({ length: 100_000 }, (_, index) => ({ k: 'all', v: index % 7 })) };
    const grouped = compileExpression('( $m := l; $m{ k: $sum(v) } )', LIMITS);
    expect(await grouped.evaluate(input)).toEqual({ all: input.l.reduce((sum, row) => sum + row.v, 0) });
    expect(grouped.stats).toEqual({ fast: 1, fallback: 0, interpreter: 0 });
    // JSONata's own grouping copies the group at every item: compared on fewer.
    await expectSame('( $m := l; $count($m{ k: $ }.all) )', { l: input.l.slice(0, 3000) });
  });

  it('a key or a value that binds a variable binds it in a frame of its own, as the interpreter\'s', async () => {
    const input = { l: [{ k: 'b', v: 1 }, { k: '1', v: 2 }, { k: 'a', v: 3 }, { k: 'b', v: 4 }] };
    const sources = [
      '( $y := ""; [l].{ k: $y := $y & k }; $y )', '( $y := "-"; $m := l; $m{ ($y := k; k): $y & k } )', '( $y := ""; $m := l; $m{ k: $y := $y & k } ~> $keys() )',
      '( $y := ""; $m := l; $x := $m^(v){ $y := k: v }; [$x, $y] )',
    ];
    for (const source of sources) {
      const interpreted = await outcome(() => compileExpression(source, LIMITS, '', { fastPath: false }).evaluate(input));
      for (const codegen of [true, false]) {
        const fast = compileExpression(source, LIMITS, '', { codegen });
        expect([source, codegen, await outcome(() => fast.evaluate(input))]).toEqual([source, codegen, interpreted]);
        expect([source, codegen, fast.stats.fast]).toEqual([source, codegen, 1]);
      }
    }
  });

  it('a group past the sequence limit is the interpreter\'s error', async () => {
    const limits = { ...LIMITS, maxSequence: 5 };
    const input = { l: Array.from({ length: 4 }, () => ({ k: 'a', v: [1, 2] })) };
    for (const source of ['( $m := l; $m{ k: $count($) } )', '( $m := l.v; $m{ "all": $ } )']) {
      const interpreted = await outcome(() => compileExpression(source, limits, '', { fastPath: false }).evaluate(input));
      expect(await outcome(() => compileExpression(source, limits).evaluate(input)), source).toEqual(interpreted);
    }
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
