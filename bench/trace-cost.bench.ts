/**
 * What the W3C trace context costs a request when no span is exported (no OTEL_* variables): the work
 * the engine adds to every request (read the caller's traceparent, make the request's span id) and to
 * every ERP request (a child span id, the traceparent header text), timed in this process over many
 * iterations, median of 7 repeats. The rest of that path (one more header on the wire) is undici's.
 * Run: npm run build && node dist/bench/trace-cost.bench.js
 */
import { childOf, continueTrace, traceHeadersOf, traceOfHeaders } from '../engine/trace/context';

const ITERATIONS = 200_000;
const REPEATS = 7;

function nsPerCall(work: (index: number) => unknown): number {
  const times: number[] = [];
  let sink = 0;
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < ITERATIONS; index += 1) sink += (work(index) as { length?: number }).length ?? 1;
    times.push(Number(process.hrtime.bigint() - started) / ITERATIONS);
  }
  if (sink === 0) throw new Error('nothing ran');
  return times.sort((a, b) => a - b)[Math.floor(REPEATS / 2)] as number;
}

const platform = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'platform=abc' };
const request = continueTrace(traceOfHeaders(platform));
const figures = {
  'request, platform sent a traceparent': nsPerCall(() => continueTrace(traceOfHeaders(platform)).spanId),
  'request, none sent (a new trace)': nsPerCall(() => continueTrace(traceOfHeaders({})).spanId),
  'each ERP request: child span id and header': nsPerCall(() => traceHeadersOf(childOf(request)).traceparent),
};
console.log(`Node ${process.version}, ${ITERATIONS} iterations, median of ${REPEATS}`);
for (const [what, ns] of Object.entries(figures)) console.log(`${what.padEnd(45)} ${(ns / 1000).toFixed(2)} µs`);
