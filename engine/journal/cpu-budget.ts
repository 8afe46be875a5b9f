import { performance } from 'node:perf_hooks';

/**
 * The CPU the journal may spend keeping requests in full (cutting the bodies, writing the entry's text,
 * holding it, masking it and writing it to the state store): `share` of the time that passes, i.e. of one CPU, so
 * that under load the journal costs at most that share of what the server does. After a quiet spell up
 * to BURST_MS may be spent at once: at a few requests a second every request is kept in full.
 */
export interface CpuBudget {
  /** Whether there is budget left for one more request kept in full. */
  allows(): boolean;
  /** Runs `work` and counts its CPU time against the budget. */
  spend<T>(work: () => T): T;
}

/**
 * The default share of one CPU: 1%. What a kept request costs besides the work measured here (the GC
 * of its text), the burst after each pause and the steps every request records come on top; together
 * they stay under issue 41's 10% of a request on a server that shares its two cores with its load
 * (bench case 1). 1% of a CPU keeps about 100 small requests a second in full, or 3 lists of 500 orders.
 */
export const DEFAULT_JOURNAL_CPU_SHARE = 0.01;

/**
 * CPU time (ms) a quiet journal may spend at once: after a pause, about 100 code lookups or 3 lists of
 * 500 orders are kept whole. 50 ms was 1% of the next 5 s of a loaded server's CPU, as much as the share
 * itself, on every pause.
 */
const BURST_MS = 10;

export function cpuBudget(share: number): CpuBudget {
  // A share of 1 (or more) is all of a CPU: every request is kept, and nothing is measured.
  if (share >= 1) return { allows: () => true, spend: (work) => work() };
  // 0: no request is kept in full for the budget's sake (failures are, by the journal's rule).
  if (share <= 0) return { allows: () => false, spend: (work) => work() };
  let left = BURST_MS;
  let at = performance.now();
  return {
    allows() {
      const now = performance.now();
      left = Math.min(BURST_MS, left + (now - at) * share);
      at = now;
      return left > 0;
    },
    spend(work) {
      // Wall time of synchronous work on this thread: its CPU time, unless another process held the
      // CPU meanwhile (then it counts more, never less). A CPU-time clock costs a system call per read.
      const started = performance.now();
      try {
        return work();
      } finally {
        left -= performance.now() - started;
      }
    },
  };
}
