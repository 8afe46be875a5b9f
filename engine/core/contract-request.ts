import { toEnvelope, type Envelope } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import { childLogger } from '../log';
import type { Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import type { Keep } from './keep';
import { runRoute, type RouteRunDeps } from './run-route';
import { stepsFor, type EngineAnswer, type EngineParts, type RequestContext, type Served } from './stage';

/**
 * The texts of an answer with the engine's secrets masked: an ERP's refusal, SOAP fault or outcome
 * message may quote the password or key it was sent, and the platform shows it to an operator.
 * `data` is the contract's values, left as they are.
 */
function masked(envelope: Envelope, mask: Masker): Envelope {
  const { validationStatus, externalMessage } = envelope;
  return {
    ...envelope,
    validationStatus: validationStatus && validationStatus.map((problem) => ({ path: mask.text(problem.path), message: mask.text(problem.message) })),
    externalMessage: externalMessage === null ? null : mask.text(externalMessage),
  };
}

/**
 * A contract route's request after routing and authentication: read input and run the operation
 * (run-route.ts), then the journal and the answer (the envelope, its request line and its count).
 */
export function serveContractRoute(parts: EngineParts, served: Served, mapping: Mapping, route: RouteSpec, params: Readonly<Record<string, string>>, keep: Keep, deps: RouteRunDeps): Promise<EngineAnswer> {
  const { request, requestId, started } = served;
  const scope: RequestContext = { requestId, mapping: mapping.name, operation: route.operationId, method: request.method, path: request.path };
  const steps = stepsFor(parts, served);
  return parts.context.run(scope, async () => {
    // The trace id on every line of the request: an ERP's log line (its traceparent) finds ours.
    const requestLog = childLogger(parts.log, { requestId, mapping: mapping.name, traceId: served.trace.traceId });
    const { outcome, failure, fault, delivery, skipped, drift } = await runRoute(parts, served, mapping, route, params, steps, requestLog, deps);
    const envelope = masked(toEnvelope(route, outcome), parts.mask);
    const durationMs = parts.clock.now() - started;
    if (delivery && steps) steps.push({ step: 'delivery', verdict: delivery.verdict, message: delivery.message });
    const entry = steps && keep(mapping, served, durationMs, steps, {
      operation: route.operationId, route: `${route.method} ${route.path}`, mode: mapping.operations.get(route.operationId)?.mode ?? 'unmapped',
      request: { method: request.method, path: request.path, query: request.query, body: request.body, params: route.inputSource === 'path' ? params : undefined },
      result: outcome.resultName, success: envelope.isResultSuccess,
      failure: failure && { kind: failure.kind, message: failure.message },
      envelope,
      ...(drift.length > 0 ? { drift } : {}),
    });
    requestLog.info({ operation: route.operationId, method: route.method, path: request.path, result: outcome.resultName, ms: Math.round(durationMs) }, 'request');
    parts.meter.request({ mapping: mapping.name, operation: route.operationId, result: outcome.resultName, seconds: durationMs / 1000 });
    return { requestId, status: 200, body: envelope, headers: { 'x-request-id': requestId }, mapping, route, outcome, envelope, failure, fault, delivery, steps, entry, ...(skipped.length > 0 ? { skipped } : {}), durationMs };
  });
}
