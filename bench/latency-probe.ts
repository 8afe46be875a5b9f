import http from 'node:http';

/**
 * The cheap-request loop of case 7, in a process of its own so that the harness (which sends a 27 MB
 * body and reads a 20 MB answer on its own event loop) cannot delay the probe's requests or timings.
 * Sends one request at a time over one kept-alive connection until told to stop or a bound is reached,
 * then reports when each request started (on the shared clock performance.timeOrigin + now) and how
 * long its answer took.
 */

export interface ProbeRun {
  readonly url: string;
  /** Pause between an answer and the next request. */
  readonly pauseMs: number;
  /** Bounds of the loop, whatever the harness does. */
  readonly maxMs: number;
  readonly maxRequests: number;
}

export interface ProbeSample {
  /** performance.timeOrigin + performance.now() when the request was sent: comparable across processes. */
  readonly startedAt: number;
  readonly ms: number;
}

export type ProbeMessage =
  | { type: 'started' }
  | { type: 'samples'; samples: ProbeSample[]; failures: number };

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function probe(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, timeout: 30_000 }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 30 s')));
    request.on('error', reject);
  });
}

process.once('message', (run: ProbeRun) => {
  let stopped = false;
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'stop') stopped = true;
  });
  process.once('disconnect', () => process.exit(0));
  void (async () => {
    const samples: ProbeSample[] = [];
    let failures = 0;
    const begin = performance.now();
    process.send?.({ type: 'started' } satisfies ProbeMessage);
    while (!stopped && samples.length + failures < run.maxRequests && performance.now() - begin < run.maxMs) {
      const started = performance.now();
      try {
        await probe(run.url);
        samples.push({ startedAt: performance.timeOrigin + started, ms: performance.now() - started });
      } catch {
        failures += 1;
      }
      if (run.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, run.pauseMs));
    }
    process.send?.({ type: 'samples', samples, failures } satisfies ProbeMessage, () => process.exit(0));
  })();
});
