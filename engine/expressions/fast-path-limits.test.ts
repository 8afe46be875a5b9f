import { beforeAll, describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS } from './compile';
import { whenFastFunctionsReady } from './fast-path/runtime';
import { fastPathSupport, MIRRORED_JSONATA_VERSION } from './fast-path/version';

beforeAll(async () => {
  await whenFastFunctionsReady();
});

describe('the time limit across the fast path and its fallback', () => {
  // Quadratic work over a list of 5,000: seconds of evaluation, well past a 300 ms limit, on either evaluator.
  const QUADRATIC = '($l := input.list; $sum($l.($sum($l.a))))';
  const list = { input: { list: Array.from({ length: 5000 }, (_, a) => ({ a })) } };

  it('a runaway on the fast path falls back with what is left of the limit, not a fresh one', async () => {
    const limits = { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 300 };
    const runaway = compileExpression(QUADRATIC, limits);
    expect(runaway.fastPath).toBe(true);
    const started = Date.now();
    await expect(runaway.evaluate(list)).rejects.toMatchObject({ code: 'D1012' });
    const elapsed = Date.now() - started;
    // Before, the interpreter got a fresh 300 ms after the fast path's 300 ms (about 600 ms in all).
    expect(elapsed).toBeLessThan(300 * 1.6);
    expect(runaway.stats).toEqual({ fast: 0, fallback: 1, interpreter: 0 });
  });

  it('concurrent evaluations keep their own budgets', async () => {
    const limits = { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 300 };
    const runaway = compileExpression(QUADRATIC, limits);
    const fine = compileExpression('$count([1..2000].($ * 2))', limits, '', { fastPath: false });
    const [stopped, counted] = await Promise.allSettled([runaway.evaluate(list), fine.evaluate({})]);
    expect(stopped.status).toBe('rejected');
    expect(counted).toEqual({ status: 'fulfilled', value: 2000 });
  });
});

describe('fast path statistics', () => {
  it('count answers by the fast path, fallbacks and interpreter-only runs per expression', async () => {
    const fast = compileExpression('input.a + 1');
    await fast.evaluate({ input: { a: 1 } });
    await fast.evaluate({ input: { a: 2 } });
    // "x" + 1 is an error: the fast path gives up and the interpreter reports it.
    await expect(fast.evaluate({ input: { a: 'x' } })).rejects.toMatchObject({ code: 'T2001' });
    expect(fast.stats).toEqual({ fast: 2, fallback: 1, interpreter: 0 });

    // $eval as a value is the one construct left to the interpreter (fast-path/runtime.ts's NOT_COMPILED_BUILTINS).
    const outside = compileExpression('$map(["1"], $eval)');
    await outside.evaluate({});
    expect(outside.stats).toEqual({ fast: 0, fallback: 0, interpreter: 1 });

    // JSONata's $contains is async; the fast path runs its synchronous twin (fast-path/higher-order.ts).
    const contains = compileExpression('$contains(input.s, ",")');
    await contains.evaluate({ input: { s: 'a,b' } });
    await contains.evaluate({ input: { s: 'a,b' } });
    expect(contains.stats).toEqual({ fast: 2, fallback: 0, interpreter: 0 });
  });
});

describe('jsonata version check', () => {
  it('the installed jsonata is the release the fast path mirrors (package.json pins it)', () => {
    expect(fastPathSupport()).toEqual({ enabled: true, jsonataVersion: MIRRORED_JSONATA_VERSION });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../package.json') as { dependencies: Record<string, string> };
    expect(pkg.dependencies.jsonata).toBe(MIRRORED_JSONATA_VERSION);
  });

  it('another version turns the fast path off with a reason an operator can act on', () => {
    const support = fastPathSupport('2.3.0');
    expect(support.enabled).toBe(false);
    expect(support.reason).toMatch(/jsonata 2\.3\.0 is installed but the fast path mirrors 2\.2\.2; every expression runs on the interpreter/);
  });
});
