import type { EngineAnswer, EngineParts, Served } from './stage';

/**
 * The answers that end a request before a contract route runs (no mapping or route at the path, a
 * method the route does not take): each gets its one request line at info and is counted, as every request is.
 */

export function secondsSince(parts: EngineParts, served: Served): number {
  return (parts.clock.now() - served.started) / 1000;
}

export function notFound(parts: EngineParts, served: Served, error: string, mapping = ''): EngineAnswer {
  const { request, requestId, started } = served;
  parts.log.info({ requestId, ...(mapping ? { mapping } : {}), method: request.method, path: request.path, result: 'NotFound', ms: Math.round(parts.clock.now() - started) }, 'request');
  parts.meter.request({ mapping, operation: '', result: 'NotFound', seconds: secondsSince(parts, served) });
  return { requestId, status: 404, body: { error }, headers: { 'x-request-id': requestId }, durationMs: parts.clock.now() - started };
}

export function methodNotAllowed(parts: EngineParts, served: Served, mapping: string, allowed: readonly string[]): EngineAnswer {
  const { request, requestId, started } = served;
  const allow = allowed.join(', ');
  parts.log.info({ requestId, mapping, method: request.method, path: request.path, result: 'MethodNotAllowed', ms: Math.round(parts.clock.now() - started) }, 'request');
  parts.meter.request({ mapping, operation: '', result: 'MethodNotAllowed', seconds: secondsSince(parts, served) });
  return { requestId, status: 405, body: { error: `${request.method} is not allowed on ${request.path}; allowed: ${allow}` }, headers: { 'x-request-id': requestId, allow }, durationMs: parts.clock.now() - started };
}
