import { performance } from 'node:perf_hooks';

/**
 * The CPU the journal may spend keeping requests in full (cutting the bodies, writing the entry's text,
 * masking it and writing it to the state store): `share` of the time that passes, counted in this
 * thread's own CPU time, so that under load the journal costs at most that share of a request and a
 * busy machine (time waited for a CPU held by another process) does not count. After a quiet spell up
 * to BURST_MS may be spent at once: at a few requests a second every request is kept in full.
 */
export interface CpuBudget {
  /** Whether there is budget left for one more request kept in full. */
  allows(): boolean;
  /** Runs `work` and counts its CPU time against the budget. */
  spend<T>(work: () => T): T;
}

/** The default share: the rest of issue 41's 10% is the trace each request records and what its kept text costs the GC. */
export const DEFAULT_JOURNAL_CPU_SHARE = 0.05;

/** CPU time (ms) a quiet journal may spend at once: a burst of large requests after a pause is kept whole. */
const BURST_MS = 200;

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
      const before = process.threadCpuUsage();
      try {
        return work();
      } finally {
        const used = process.threadCpuUsage(before);
        left -= (used.user + used.system) / 1000;
      }
    },
  };
}
