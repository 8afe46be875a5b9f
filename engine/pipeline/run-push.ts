import { Deadline } from '../http/deadline';
import type { PushSpec } from '../mapping/model';
import type { CallRecord } from './context';
import type { CallEnv } from './fetch-call';
import type { CallRules } from './judge';
import { runCall } from './run-call';
import type { PipelineDeps } from './run-operation';

/**
 * One stored push event delivered to the platform: the push's calls in order, each reading `input` (what
 * the push's transform gave: one record, or a batch's list) and the calls before it. Any answer that is
 * not a success fails the delivery as it fails a contract request, and the outbox decides: retried (no
 * answer, 408, 429, 5xx) or dead (the platform refused it).
 */
const PUSH_RULES: CallRules = { outcomes: [], successResult: 'Delivered', emptyAnswerOk: true };

export async function deliverPush(push: PushSpec, input: unknown, deps: PipelineDeps): Promise<void> {
  const env: CallEnv = {
    connection: deps.connection, deadline: new Deadline(deps.deadlineMs ?? push.deadlineMs, undefined, deps.abandoned), observer: deps.observer, log: deps.log,
    requestId: deps.requestId, idempotencyKey: deps.idempotencyKey, trace: deps.trace, onCall: deps.onCall,
  };
  const calls: Record<string, CallRecord | readonly CallRecord[]> = {};
  for (const call of push.calls) {
    const made = await runCall(call, PUSH_RULES, { input, calls }, env);
    if (made) calls[call.name] = made.record;
  }
}
