import { afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { compileExpression, type ExpressionLimits } from '../../engine/expressions/compile';
import { whenFastFunctionsReady } from '../../engine/expressions/fast-path/runtime';

/**
 * What differential tests of expressions compare (engine/expressions/*.test.ts): a value with the
 * markers JSONata keeps on arrays (sequence, keepSingleton, cons...) and whether an object has a
 * prototype, or the error's code, so that the engine's evaluation must match JSONata's in all of them.
 */

export function describeValue(value: unknown): unknown {
  if (value === undefined) return { undefined: true };
  if (typeof value === 'function') return { function: true };
  if (Array.isArray(value)) {
    const flags = Object.getOwnPropertyNames(value).filter((key) => key !== 'length' && !/^\d+$/.test(key));
    const marks = flags.sort().map((key) => `${key}:${typeof (value as unknown as Record<string, unknown>)[key] === 'function' ? 'fn' : String((value as unknown as Record<string, unknown>)[key])}`);
    return { array: value.map(describeValue), marks };
  }
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).map((key) => [key, describeValue((value as Record<string, unknown>)[key])]);
    return { object: entries, nullPrototype: Object.getPrototypeOf(value) === null };
  }
  return { value: Object.is(value, -0) ? '-0' : value, type: typeof value };
}

/**
 * For a test file that compares the engines' answers: the fast path's functions are ready, and the clock
 * stands still in each test. JSONata evaluates an object's values side by side (Promise.all) and the
 * interpreter lets the event loop turn every 10 ms of wall clock (guard.ts): when two values of one
 * object fail, which error it reports depends on where it turned. On a busy machine a large generated
 * input then gave the interpreter one error and the fast path's rerun the other (a CI run of 2026-11-24:
 * T0410 from one `$isoDateTime`, the helper's own message from another). With the clock still, neither
 * ever turns, so the comparison is of what they compute, not of the machine's load.
 */
export function comparedWithTheClockStill(): void {
  beforeAll(async () => {
    expect(await whenFastFunctionsReady()).toBe(true);
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

export async function outcome(evaluate: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: describeValue(await evaluate()) };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

/**
 * Evaluates with the given limits and measures the longest pause of the event loop meanwhile (a 2 ms
 * timer): what the guarded built-ins and the grouping promise is a finish with the event loop let in.
 * A pause is counted in this thread's CPU time between two ticks, not in wall-clock time: work done
 * without letting the event loop in is what is measured, whatever else the machine runs (on a loaded
 * one, a thread waiting for a core would add the wait to a wall-clock pause, and the test would flap).
 */
export async function timedEvaluation(source: string, limits: ExpressionLimits, input: unknown = {}): Promise<{ ms: number; longestPause: number; result: unknown }> {
  const expression = compileExpression(source, limits);
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let longestPause = 0;
  let last = cpuMs();
  const timer = setInterval(() => {
    const now = cpuMs();
    longestPause = Math.max(longestPause, now - last);
    last = now;
  }, 2);
  const started = performance.now();
  let result: unknown;
  try {
    result = await expression.evaluate(input);
  } catch (error) {
    result = { error: (error as { code?: string; message?: string }).code ?? (error as Error).message };
  }
  const ms = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(timer);
  return { ms, longestPause, result };
}
