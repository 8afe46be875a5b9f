import type { Masker } from '../mapping/mask';
import { continueTrace, traceOfHeaders } from '../trace/context';
import { startScopeSpan, type ScopeSpan, type Tracing } from '../trace/spans';
import type { EngineRequest } from './request';
import type { EngineAnswer, Served } from './stage';

/**
 * The request's place in its trace: the caller's `traceparent` continued (a new trace without one), and,
 * when spans are exported, its server span. Without export it costs one or two random ids (bench/trace-cost.bench.ts).
 */
export function traceRequest(request: EngineRequest, tracing: Tracing | undefined, mask: Masker): Pick<Served, 'trace' | 'span'> {
  const parent = traceOfHeaders(request.headers);
  const own = continueTrace(parent);
  if (!tracing) return { trace: own };
  const path = request.path.split('?')[0] as string;
  const span: ScopeSpan = startScopeSpan(tracing, { name: request.method, kind: 'server', context: own, parent, attributes: { 'http.request.method': request.method, 'url.path': mask.text(path) } }, mask);
  return { trace: span.context, span };
}

/** Ends the server span with what the request came to: its route, result and, for a failure, its kind as error.type. */
export function endRequestSpan(span: ScopeSpan | undefined, request: EngineRequest, answer: EngineAnswer): void {
  if (!span) return;
  const route = answer.route ? answer.route.path : answer.push ? `/push/${answer.push.name}` : undefined;
  const result = answer.outcome?.resultName ?? answer.pushResult;
  const errorType = answer.failure?.kind ?? (answer.fault !== undefined ? 'INTERNAL' : answer.status >= 500 ? String(answer.status) : undefined);
  span.end({
    'http.route': route, 'http.response.status_code': answer.status, 'adapter.request_id': answer.requestId,
    'adapter.mapping': answer.mapping?.name, 'adapter.operation': answer.route?.operationId ?? (answer.push && `push/${answer.push.name}`),
    'adapter.result': result, ...(answer.outcome ? { 'adapter.success': answer.envelope?.isResultSuccess } : {}),
  }, errorType, route === undefined ? request.method : `${request.method} ${route}`);
}
