import { OperationFailure } from '../errors';
import { TransportError, type OutboundRequest } from '../http/client';
import type { ErpConnection } from '../http/connection';
import type { Deadline } from '../http/deadline';
import { DeadlinePassed, TokenUnavailable } from '../http/faults';
import type { Logger } from '../log';
import type { CallSpec, Mapping } from '../mapping/model';
export type { Answer } from './answer';
import { buildRequest } from './build-request';
import type { Answer, SendPage } from './answer';
import type { ExpressionContext } from './context';
import { fetchPages } from './paginate';
import type { TraceObserver } from './trace';

/** What one call needs from the request it serves. */
export interface CallEnv {
  readonly mapping: Mapping;
  readonly connection: ErpConnection;
  readonly deadline: Deadline;
  readonly observer?: TraceObserver;
  readonly log?: Logger;
}

export function targetOf(request: OutboundRequest): string {
  return `${request.method} ${request.url.pathname}`;
}

/** What an outbound fault means for the request: the HTTP layer reports it, the pipeline decides. */
function meaningOf(error: unknown, label: string): unknown {
  if (error instanceof TransportError) return new OperationFailure('ERP_UNREACHABLE', error.message, [{ path: `calls.${label}`, message: error.message }]);
  if (error instanceof DeadlinePassed) return new OperationFailure('DEADLINE_EXCEEDED', error.message, [{ path: `calls.${label}`, message: error.message }]);
  if (error instanceof TokenUnavailable) return new OperationFailure('AUTH_FAILED', error.message, [{ path: 'system.auth', message: error.message }]);
  return error;
}

function sender(call: CallSpec, label: string, env: CallEnv): SendPage {
  return async (request) => {
    env.observer?.request?.(request);
    let result;
    try {
      result = await env.connection.send(call, request, { label, deadline: env.deadline, log: env.log, onAttempt: env.observer?.attempt?.bind(env.observer) });
    } catch (error) {
      throw meaningOf(error, label);
    }
    env.observer?.response?.(label, result.response, { attempts: result.attempts, cached: result.cached });
    return result.response;
  };
}

/** Builds and sends one call (every page of it, when paginated). Transport failures throw. */
export async function fetchAnswer(call: CallSpec, context: ExpressionContext, label: string, env: CallEnv): Promise<Answer> {
  const request = await buildRequest(call, env.mapping.system, context);
  const send = sender(call, label, env);
  if (call.paginate) return fetchPages(call.paginate, request, context, label, env.mapping.system.baseUrl, send);
  const response = await send(request);
  return { record: { status: response.status, headers: response.headers, body: response.body }, target: targetOf(request), bodyError: response.bodyError };
}
