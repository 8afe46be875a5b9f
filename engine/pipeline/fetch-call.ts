import { OperationFailure } from '../errors';
import { TransportError, type OutboundRequest } from '../http/client';
import type { ErpConnection } from '../http/connection';
import type { Deadline } from '../http/deadline';
import type { AttemptReport } from '../http/with-retry';
import { DeadlinePassed, RequestAbandoned, TokenUnavailable } from '../http/faults';
import type { Logger } from '../log';
import type { CallSpec, SystemSpec } from '../mapping/model';
export type { Answer } from './answer';
import { buildRequest } from './build-request';
import type { Answer, SendPage } from './answer';
import type { ExpressionContext } from './context';
import { fetchPages } from './paginate';
import type { TraceObserver } from '../trace/observer';

/** One call to the ERP as metrics see it; statusClass is "none" when no answer came. */
export interface CallReport {
  readonly call: string;
  readonly statusClass: string;
  readonly attempts: number;
  readonly seconds: number;
  readonly cache?: 'hit' | 'miss';
}

/** What one call needs from the request it serves. */
export interface CallEnv {
  /** The system called (the ERP, or the platform for a push) with its limits, credentials and caches. */
  readonly connection: ErpConnection;
  readonly deadline: Deadline;
  readonly observer?: TraceObserver;
  readonly log?: Logger;
  /** The platform request's id, sent to the ERP in system.requestIdHeader. */
  readonly requestId?: string;
  /** An outbox event's id, sent on every delivery attempt in system.idempotencyHeader. */
  readonly idempotencyKey?: string;
  readonly onCall?: (report: CallReport) => void;
}

function targetOf(request: OutboundRequest): string {
  return `${request.method} ${request.url.pathname}`;
}

/** What an outbound fault means for the request: the HTTP layer reports it, the pipeline decides. */
function meaningOf(error: unknown, label: string): unknown {
  if (error instanceof TransportError) return new OperationFailure('ERP_UNREACHABLE', error.message, [{ path: `calls.${label}`, message: error.summary }]);
  if (error instanceof RequestAbandoned) return new OperationFailure('DEADLINE_EXCEEDED', error.message, [{ path: `calls.${label}`, message: error.message }]);
  if (error instanceof DeadlinePassed) return new OperationFailure('DEADLINE_EXCEEDED', error.message, [{ path: `calls.${label}`, message: error.message }]);
  if (error instanceof TokenUnavailable) return new OperationFailure('AUTH_FAILED', error.message, [{ path: 'system.auth', message: error.summary }]);
  return error;
}

function sender(call: CallSpec, label: string, env: CallEnv): SendPage {
  return async (request) => {
    env.observer?.request?.(request);
    const started = performance.now();
    let attempts = 0;
    const onAttempt = (name: string, report: AttemptReport) => {
      attempts = Math.max(attempts, report.attempt);
      env.observer?.attempt?.(name, report);
    };
    const seconds = () => (performance.now() - started) / 1000;
    let result;
    try {
      result = await env.connection.send(call, request, { label, deadline: env.deadline, log: env.log, onAttempt });
    } catch (error) {
      env.onCall?.({ call: call.name, statusClass: 'none', attempts: Math.max(attempts, 1), seconds: seconds(), cache: call.cache ? 'miss' : undefined });
      throw meaningOf(error, label);
    }
    const statusClass = result.cached ? 'cached' : `${Math.floor(result.response.status / 100)}xx`;
    env.onCall?.({ call: call.name, statusClass, attempts: result.attempts, seconds: seconds(), cache: call.cache ? (result.cached ? 'hit' : 'miss') : undefined });
    env.observer?.response?.(label, result.response, { attempts: result.attempts, cached: result.cached });
    return result.response;
  };
}

/**
 * The request id (and an outbox event's idempotency key) travel to the ERP unless the mapping turned the
 * header off or a call sets that header itself.
 */
function withEngineHeaders(request: OutboundRequest, system: SystemSpec, env: CallEnv): OutboundRequest {
  const added: Record<string, string> = {};
  const present = (name: string) => Object.keys(request.headers).some((key) => key.toLowerCase() === name.toLowerCase());
  if (system.requestIdHeader && env.requestId !== undefined && !present(system.requestIdHeader)) added[system.requestIdHeader] = env.requestId;
  if (system.idempotencyHeader && env.idempotencyKey !== undefined && !present(system.idempotencyHeader)) added[system.idempotencyHeader] = env.idempotencyKey;
  return Object.keys(added).length === 0 ? request : { ...request, headers: { ...request.headers, ...added } };
}

/** Builds and sends one call (every page of it, when paginated). Transport failures throw. */
export async function fetchAnswer(call: CallSpec, context: ExpressionContext, label: string, env: CallEnv): Promise<Answer> {
  const { system } = env.connection;
  const request = withEngineHeaders(await buildRequest(call, system, context), system, env);
  const send = sender(call, label, env);
  if (call.paginate) return fetchPages(call.paginate, request, context, label, system.baseUrl, send, call.queryEncoding);
  const response = await send(request);
  return { record: { status: response.status, headers: response.headers, body: response.body }, target: targetOf(request), bodyError: response.bodyError };
}
