import type { Mapping } from '../mapping/model';
import type { PushServer } from '../pushes/push-request';
import { allOf } from '../trace/observer';
import { traceRecorder } from '../trace/steps';
import { secondsSince } from './answer';
import type { Keep } from './keep';
import { stepsFor, type EngineAnswer, type EngineParts, type RequestContext, type Served } from './stage';

/**
 * The push stage, in place of authenticate → run operation for POST /push/<name>: the ERP's door, with
 * the push's own credentials (not the platform's inbound.auth), traced and journaled as a contract request is.
 */
export async function servePushRequest(parts: EngineParts, served: Served, mapping: Mapping, pushName: string, servePush: PushServer['serve'], keep: Keep): Promise<EngineAnswer> {
  const { request, requestId, started, options } = served;
  const steps = stepsFor(parts, served);
  const recorder = steps && traceRecorder(mapping.platform?.baseUrl ?? mapping.system.baseUrl, undefined, steps, options.expressions);
  const scope: RequestContext = { requestId, mapping: mapping.name, operation: `push/${pushName}`, method: request.method, path: request.path };
  const pushed = await parts.context.run(scope, () => servePush(mapping, pushName, request, requestId, () => secondsSince(parts, served), allOf(options.observer, recorder, served.span?.observer), served.trace));
  const durationMs = parts.clock.now() - started;
  if (pushed.delivery && steps) steps.push({ step: 'delivery', verdict: pushed.delivery.verdict, message: pushed.delivery.message });
  // A push that did not reach its checks (unknown, refused, not a POST) is kept out, as such contract requests are.
  const entry = steps && pushed.push && pushed.result !== 'Refused' && pushed.result !== 'MethodNotAllowed' ? keep(mapping, served, durationMs, steps, {
    operation: scope.operation as string, route: `POST /push/${pushName}`, mode: 'push',
    request: { method: request.method, path: request.path, query: request.query, body: pushed.input },
    result: pushed.result, success: pushed.status === 202,
    failure: 'error' in pushed.body ? { kind: pushed.result, message: pushed.body.error } : undefined,
    answer: { status: pushed.status, body: pushed.body },
  }) : undefined;
  return { requestId, status: pushed.status, body: pushed.body, headers: pushed.headers, mapping, push: pushed.push, pushResult: pushed.result, delivery: pushed.delivery, steps, entry, durationMs };
}
