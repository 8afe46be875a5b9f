import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS } from './compile';

/**
 * Issue 29, item 9: an expression's time limit counts its own running time. Ten requests at once on one
 * thread each take about ten times their own time in wall time; before, the limit counted wall time and
 * all of them failed with D1012 ("a wrong answer caused by load").
 */
const SOURCE = '$reduce([1..N], function($sum, $n) { $sum + $n % 7 })';
const INTERPRETER = { fastPath: false } as const;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string }).code;
}

describe('expression time under load', () => {
  it('counts the time an expression ran, not the time it waited for others; a separate wall bound still ends it', async () => {
    const text = SOURCE.replace('N', '20000');
    // The interpreter, which pauses for the event loop (the fast path, synchronous, hands a long evaluation over to it).
    const probe = compileExpression(text, { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 60_000 }, '', INTERPRETER);
    expect(probe.fastPath).toBe(false);
    await probe.evaluate({});
    const alone = await timed(() => probe.evaluate({}));
    const concurrent = 10;

    // The limit is five times what one evaluation needs alone; ten at once take about ten times that in wall time.
    const limit = Math.max(200, Math.ceil(alone * 5));
    const own = compileExpression(text, { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: limit, wallTimeoutMs: 600_000 }, '', INTERPRETER);
    const results = await Promise.allSettled(Array.from({ length: concurrent }, () => own.evaluate({})));
    const wall = await timed(() => Promise.all(Array.from({ length: concurrent }, () => own.evaluate({}))));
    console.log(`alone ${alone.toFixed(0)} ms, limit ${limit} ms, ${concurrent} at once ${wall.toFixed(0)} ms of wall time`);
    expect(results.map((result) => result.status)).toEqual(Array(concurrent).fill('fulfilled'));

    // The same load against a wall bound below what it takes: each fails, naming the wall bound.
    const bounded = compileExpression(text, { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: limit, wallTimeoutMs: limit }, '', INTERPRETER);
    const starved = await Promise.allSettled(Array.from({ length: concurrent }, () => bounded.evaluate({})));
    const failures = starved.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.map((failure) => errorCode(failure.reason))).toEqual(Array(failures.length).fill('D1012'));
  });

  it('an expression over its own limit still stops, alone', async () => {
    const endless = compileExpression(SOURCE.replace('N', '900000'), { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 200 });
    await expect(endless.evaluate({})).rejects.toMatchObject({ code: 'D1012' });
  });
});
