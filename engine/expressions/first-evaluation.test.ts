import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { compileExpression } from './compile';
import { FALLBACK, checkClock, type Run } from './fast-path/runtime';

/**
 * A process's first evaluations (a user's first request after a start or a reload) run compiled, as the
 * later ones do. This file runs in a process of its own (vitest.config.ts): nothing evaluated before it.
 */

describe('the first evaluation of a process', () => {
  it('runs on the fast path: it waits for JSONata\'s built-ins instead of handing the evaluation to the interpreter', async () => {
    const total = compileExpression('$sum(orders.lines.(qty * price))');
    const input = { orders: [{ lines: [{ qty: 2, price: 3 }, { qty: 1, price: 4 }] }, { lines: [{ qty: 5, price: 1 }] }] };
    expect(await total.evaluate(input)).toBe(15);
    expect(total.stats).toEqual({ fast: 1, fallback: 0, interpreter: 0 });
  });
});

/** A run as the fast path makes it (fast-path/index.ts), with the default 50 ms slice. */
function freshRun(): Run {
  return {
    maxSequence: 1e6, maxTextLength: 1e6, deadline: 0, sliceMs: 50, sliceEndCpuUs: 0, sliceStartedAt: 0, ticks: 0, depth: 0, maxDepth: 500, functionsMade: false,
    focus: { options: {}, createSequence: () => { throw new Error('not used'); }, environment: { timestamp: new Date() } },
  };
}

/** Blocks this thread, without using its CPU, while another thread uses `ms` of CPU time of its own. */
function whileAnotherThreadWorks(ms: number): void {
  const done = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(`
    const { workerData } = require('node:worker_threads');
    const start = process.threadCpuUsage();
    for (;;) { const used = process.threadCpuUsage(start); if (used.user + used.system >= workerData.ms * 1000) break; }
    Atomics.store(workerData.done, 0, 1);
    Atomics.notify(workerData.done, 0);
  `, { eval: true, workerData: { ms, done } });
  // Bounded: a worker that never starts cannot hold the test past its timeout.
  Atomics.wait(done, 0, 0, 15_000);
  void worker.terminate();
  expect(Atomics.load(done, 0)).toBe(1);
}

function useThisThreadsCpu(ms: number): void {
  const start = process.threadCpuUsage();
  for (;;) {
    const used = process.threadCpuUsage(start);
    if (used.user + used.system >= ms * 1000) return;
  }
}

describe('the fast path\'s CPU slice', () => {
  it('counts the CPU of the thread that evaluates, not of the process\'s other threads (V8 compiles and collects beside a new mapping\'s first list)', () => {
    const run = freshRun();
    checkClock(run);
    // 120 ms of another thread's CPU while this one waits: the process used more than the slice, this thread almost none.
    whileAnotherThreadWorks(120);
    expect(() => checkClock(run)).not.toThrow();
  });

  it('still gives up an evaluation that keeps its own thread busy past the slice', () => {
    const run = freshRun();
    checkClock(run);
    useThisThreadsCpu(60);
    let thrown: unknown;
    try {
      checkClock(run);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(FALLBACK);
  });
});
