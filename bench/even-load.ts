import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { LoadRun, LoadSummary } from './load-worker';

/**
 * An open-loop load at an even pace: one request every 1/rate seconds, each on a free connection of
 * the pool (or waiting for one), its latency counted from when it was handed to the pool, so a wait
 * for a connection counts and the generator's own timer lateness does not. autocannon's rate is not
 * this: each connection sends its second's requests at once at the start of the second, which is a
 * burst of the whole second's load, then a pause.
 */

/** Timers fire on whole milliseconds: a request due within this is sent at once. */
const TIMER_SLACK_MS = 1;

export async function evenLoad(run: LoadRun & { readonly rate: number }, percentile: (sorted: readonly number[], p: number) => number): Promise<LoadSummary> {
  const url = new URL(run.url);
  const pool = new Pool(url.origin, { connections: run.connections });
  const total = run.amount ?? Math.round(run.rate * (run.durationS ?? 60));
  const interval = 1000 / run.rate;
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const started = performance.now();
  let lastAnswerAt = started;
  const send = async (): Promise<void> => {
    const sentAt = performance.now();
    try {
      const answer = await pool.request({ path: url.pathname + url.search, method: run.method, body: run.body, headers: run.body === undefined ? {} : { 'content-type': 'application/json' } });
      await answer.body.dump();
      if (answer.statusCode < 200 || answer.statusCode > 299) non2xx += 1;
      lastAnswerAt = performance.now();
      latencies.push(lastAnswerAt - sentAt);
    } catch {
      errors += 1;
    }
  };
  const sent: Promise<void>[] = [];
  for (let index = 0; index < total; index++) {
    const due = started + index * interval;
    const wait = due - performance.now();
    if (wait > TIMER_SLACK_MS) await sleep(wait);
    sent.push(send());
  }
  await Promise.all(sent);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const durationS = (lastAnswerAt - started) / 1000;
  return { requests: latencies.length, durationS, requestsPerSecond: latencies.length / durationS, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), errors, non2xx };
}
