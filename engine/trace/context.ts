import { randomFillSync } from 'node:crypto';

/**
 * W3C trace context (https://www.w3.org/TR/trace-context/): which trace a request belongs to and which
 * span of it is ours. Every request has one, whether or not spans are exported: the platform's
 * `traceparent` is continued (or a trace begun), and every ERP call carries a child of it, so the ERP's
 * logs can be joined to the engine's by the trace id. Written here, not taken from @opentelemetry/core,
 * so that the path every request takes loads no OpenTelemetry package (they load only for export).
 */
export interface TraceContext {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero: this span's id. */
  readonly spanId: string;
  /** The sampled flag: the span is recorded (exported) by whoever set it. */
  readonly sampled: boolean;
  /** The vendors' `tracestate`, passed on unchanged. */
  readonly state?: string;
}

/** The headers that carry a context on the wire. */
export interface TraceHeaders {
  readonly traceparent: string;
  readonly tracestate?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** tracestate: at most 512 characters is what a receiver must keep; longer ones are dropped, not cut. */
const MAX_STATE = 512;

/** The context a `traceparent` header names; undefined when it is absent or invalid (a new trace begins then). */
export function parseTraceparent(traceparent: string | undefined, tracestate?: string): TraceContext | undefined {
  if (traceparent === undefined) return undefined;
  const found = TRACEPARENT.exec(traceparent.trim());
  if (!found) return undefined;
  const [, version, traceId, spanId, flags, rest] = found as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is forbidden; version 00 has exactly four fields (later versions may add some).
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const state = tracestate?.trim();
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1, ...(state && state.length <= MAX_STATE ? { state } : {}) };
}

/**
 * Random bytes are taken from a pool refilled 4 KB at a time: a randomBytes call per id cost more than
 * everything else the trace context adds to a request (measured: bench/trace-cost.bench.ts).
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let used = POOL_SIZE;
function newId(bytes: number): string {
  if (used + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_SIZE));
    used = 0;
  }
  used += bytes;
  return pool.toString('hex', used - bytes, used);
}

/** A new span of the same trace, under `parent`. */
export function childOf(parent: TraceContext): TraceContext {
  return { ...parent, spanId: newId(8) };
}

/** A new trace's first span: not sampled unless an exporter's sampler says so. */
function newTrace(): TraceContext {
  return { traceId: newId(16), spanId: newId(8), sampled: false };
}

/** A request's own context: a child of the caller's, or the first span of a new trace. */
export function continueTrace(parent: TraceContext | undefined): TraceContext {
  return parent ? childOf(parent) : newTrace();
}

export function traceHeadersOf(context: TraceContext): TraceHeaders {
  const traceparent = `00-${context.traceId}-${context.spanId}-${context.sampled ? '01' : '00'}`;
  return context.state === undefined ? { traceparent } : { traceparent, tracestate: context.state };
}

/** The context of a request's headers (`traceparent`, `tracestate`, as Node hands them over). */
export function traceOfHeaders(headers: Readonly<Record<string, string | readonly string[] | undefined>> | undefined): TraceContext | undefined {
  const one = (value: string | readonly string[] | undefined) => (typeof value === 'string' ? value : value?.[0]);
  // Several tracestate headers are one list (the spec joins them with commas); several traceparents are invalid.
  const state = headers?.tracestate;
  return parseTraceparent(one(headers?.traceparent), typeof state === 'string' ? state : state?.join(','));
}
