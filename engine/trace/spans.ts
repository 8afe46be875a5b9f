import type { OutboundRequest, OutboundResponse } from '../http/client';
import { maskUrlNames, type Masker } from '../mapping/mask';
import { parseTraceparent, type TraceContext } from './context';
import type { TraceObserver } from './observer';

/**
 * Spans, when they are exported (OTEL_* variables; trace/from-env.ts decides, trace/otel.ts records).
 * The engine chooses every span's ids itself (trace/context.ts) because they go on the wire to the ERP
 * whether or not anything is exported; a Tracing records spans under the ids it is given.
 */

export type SpanKind = 'server' | 'client' | 'consumer';
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

export interface SpanStart {
  readonly name: string;
  readonly kind: SpanKind;
  /** The span's own ids. */
  readonly context: TraceContext;
  readonly parent?: TraceContext;
  readonly attributes?: SpanAttributes;
  /** Spans this one follows from (an outbox delivery: the request that stored the event). */
  readonly links?: readonly TraceContext[];
}

interface OpenSpan {
  /** The sampler's decision: recorded spans are flagged sampled on the calls under them. */
  readonly sampled: boolean;
  /** Ends the span with these attributes (and a new name); with `errorType`, as failed. */
  end(attributes?: SpanAttributes, errorType?: string, name?: string): void;
}

export interface Tracing {
  start(span: SpanStart): OpenSpan;
  /** Exports the spans still waiting; the engine calls it when it closes. */
  shutdown(): Promise<void>;
}

/** A span with its ids, and an observer that records the ERP calls made under it as its client spans. */
export interface ScopeSpan {
  readonly context: TraceContext;
  readonly observer: TraceObserver;
  /** Ends the calls' spans still open (a call cut off by the deadline) and then this one. */
  end(attributes?: SpanAttributes, errorType?: string, name?: string): void;
}

/**
 * Starts a request's (or a delivery's) span; its context comes back with the sampler's decision, which
 * the ERP calls under it carry on their traceparent.
 */
export function startScopeSpan(tracing: Tracing, start: SpanStart, mask: Masker): ScopeSpan {
  const span = tracing.start(start);
  const context = { ...start.context, sampled: span.sampled };
  const calls = callSpans(tracing, context, mask);
  return {
    context,
    observer: calls.observer,
    end(attributes, errorType, name) {
      calls.endOpen();
      span.end(attributes, errorType, name);
    },
  };
}

/** Semantic conventions' error.type of an answer: its status when 4xx or 5xx (a client span's failure). */
function errorTypeOf(response: OutboundResponse): string | undefined {
  return response.status >= 400 ? String(response.status) : undefined;
}

/**
 * The client span of each ERP request, from the steps the pipeline reports (the journal's and dry-run's
 * observer hooks): started at `request`, ended at its answer or its last failed attempt. A paginated call
 * sends one request per page: each page is its own span (adapter.page counts them).
 */
function callSpans(tracing: Tracing, parent: TraceContext, mask: Masker): { observer: TraceObserver; endOpen(): void } {
  const open = new Map<string, OpenSpan>();
  const pages = new Map<string, number>();
  const close = (label: string, attributes: SpanAttributes, errorType?: string) => {
    open.get(label)?.end(attributes, errorType);
    open.delete(label);
  };
  const observer: TraceObserver = {
    request(request: OutboundRequest, label = request.callName) {
      const context = request.trace && parseTraceparent(request.trace.traceparent, request.trace.tracestate);
      if (!context) return;
      const page = (pages.get(label) ?? 0) + 1;
      pages.set(label, page);
      const { url } = request;
      open.set(label, tracing.start({
        name: `${request.method} ${request.callName}`, kind: 'client', context, parent,
        attributes: {
          'http.request.method': request.method, 'url.full': mask.url(new URL(maskUrlNames(url))),
          'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
          'adapter.call': label, 'adapter.page': page,
        },
      }));
    },
    attempt(label, report) {
      // The last attempt without an answer ends the call: no answer came (after the retries it allows).
      if (report.error !== undefined && report.retryInMs === undefined) close(label, { 'adapter.attempts': report.attempt }, report.error);
    },
    response(label, response, info) {
      close(label, { 'http.response.status_code': response.status, 'adapter.attempts': info?.attempts, 'adapter.cached': info?.cached }, errorTypeOf(response));
    },
  };
  return {
    observer,
    endOpen() {
      for (const label of [...open.keys()]) close(label, {}, 'no answer');
    },
  };
}
