import autocannon from 'autocannon';
import { evenLoad } from './even-load';

/**
 * The load generator, in a process of its own so that its CPU is never the adapter's: receives one run
 * over IPC, runs autocannon (or the even pace of even-load.ts), sends the summary back and exits.
 */

export interface LoadRun {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly body?: string;
  /** Bodies each connection sends in turn instead of `body` (events of several work orders). */
  readonly bodies?: readonly string[];
  readonly connections: number;
  /** Seconds; a run is bounded either by time or by a request count. */
  readonly durationS?: number;
  readonly amount?: number;
  /** Requests per second across all connections (autocannon's overallRate); unpaced by default. */
  readonly rate?: number;
  /** With `rate`: 'even' sends one request every 1/rate s (even-load.ts) instead of autocannon's burst at the start of each second. */
  readonly spacing?: 'even';
}

export interface LoadSummary {
  readonly requests: number;
  readonly durationS: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** Exact percentile of a sorted sample (nearest rank). */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

process.once('message', (run: LoadRun) => {
  if (run.spacing === 'even' && run.rate !== undefined) {
    evenLoad({ ...run, rate: run.rate }, percentile).then(
      (summary) => process.send?.(summary, () => process.exit(0)),
      (error: unknown) => process.send?.({ error: String(error) }, () => process.exit(1)),
    );
    return;
  }
  // autocannon's own histogram has whole-millisecond resolution; the fast routes answer in about one,
  // so latencies are kept here as measured (fractional ms). Bounded: one number per answered request.
  const latencies: number[] = [];
  // autocannon ends a run on its next sampling tick; requests/s is taken from the start to the last
  // answer instead, so the tick's idle tail does not count.
  const started = performance.now();
  let lastAnswerAt = started;
  const instance = autocannon({
    url: run.url,
    method: run.method,
    body: run.body,
    headers: run.body === undefined && run.bodies === undefined ? {} : { 'content-type': 'application/json' },
    ...(run.bodies ? { requests: run.bodies.map((body) => ({ method: run.method, body })) } : {}),
    connections: run.connections,
    duration: run.durationS ?? 60,
    amount: run.amount,
    ...(run.rate === undefined ? {} : { overallRate: run.rate }),
    timeout: 10,
    sampleInt: 100,
  }, (error, result) => {
    if (error) {
      process.send?.({ error: String(error) }, () => process.exit(1));
      return;
    }
    const requests = result.requests.total;
    const durationS = (lastAnswerAt - started) / 1000;
    latencies.sort((a, b) => a - b);
    const summary: LoadSummary = {
      requests,
      durationS,
      requestsPerSecond: requests / durationS,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
    };
    process.send?.(summary, () => process.exit(0));
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
    latencies.push(responseTimeMs);
    lastAnswerAt = performance.now();
  });
  process.once('disconnect', () => instance.stop());
});
