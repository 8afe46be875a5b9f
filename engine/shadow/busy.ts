import { performance } from 'node:perf_hooks';

/**
 * Whether the live requests' thread is busy, and when a shadow run that waits for it looks again.
 */

/**
 * How often the live thread's busyness is measured; between two measurements the last one stands. Short,
 * so that a burst of requests after a quiet spell is seen within its first milliseconds: with one-second
 * windows a burst ran the candidate on every request of its first second, and with 100 ms windows on
 * most of a 150 ms burst (autocannon's 300 req/s sends each second's requests at its start).
 */
export const BUSY_WINDOW_MS = 20;

/**
 * The share of one CPU the live thread used in the last window: its own CPU time, over the window's
 * length. Not the process's CPU time, which counts the candidates' thread too; not event-loop
 * utilisation, which counts the time the thread waited for a CPU held by another process as busy.
 */
export function busyMeter(): () => number {
  let since = process.threadCpuUsage();
  let at = performance.now();
  let share = 0;
  return () => {
    const now = performance.now();
    if (now - at >= BUSY_WINDOW_MS) {
      const used = process.threadCpuUsage(since);
      share = (used.user + used.system) / 1000 / (now - at);
      since = process.threadCpuUsage();
      at = now;
    }
    return share;
  };
}

/** The live requests under way (the server's request tracker). */
export interface LiveRequests {
  readonly inFlight: number;
  /** Resolves when no live request is under way. */
  idle(): Promise<void>;
}

/**
 * When to look again at runs that wait: once the live requests end (one wait for that at a time, so a
 * slow ERP's requests that never all end pile up no waiters), or after a time (one timer at a time; an
 * earlier look does no harm, as `look` looks at everything).
 */
export function wakeUps(live: LiveRequests, look: () => void): { afterPause(): void; in(ms: number): void } {
  let pauseAwaited = false;
  let timer: NodeJS.Timeout | undefined;
  return {
    afterPause() {
      if (pauseAwaited) return;
      pauseAwaited = true;
      void live.idle().then(() => {
        pauseAwaited = false;
        look();
      });
    },
    in(ms) {
      timer ??= setTimeout(() => {
        timer = undefined;
        look();
      }, ms).unref();
    },
  };
}
