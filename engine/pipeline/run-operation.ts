import type { Outcome } from '../contract/envelope';
import { MUST_BE_A_LIST, type Validator } from '../contract/schema-registry';
import { OperationFailure, type Problem } from '../errors';
import { fieldFor } from '../mapping/output-fields';
import type { ErpConnection } from '../http/connection';
import { Deadline } from '../http/deadline';
import type { Logger } from '../log';
import type { FlowOperation } from '../mapping/model';
import type { CallRecord } from './context';
import { evaluateSeen } from './evaluate-seen';
import type { CallRules } from './judge';
import { runCall } from './run-call';
import { withSession } from './session';
import { withoutInvalidRecords, type SkippedRecord } from './skip-invalid';
import type { CallEnv, CallReport } from './fetch-call';
import type { TraceContext } from '../trace/context';
import type { TraceObserver } from '../trace/observer';

/**
 * One contract request through a flow operation: make each call (with its pages, elements, retries),
 * let the outcome rules judge each answer, map the output, check it against the contract. Every
 * failure leaves as an OperationFailure; turning failures into result names is the caller's
 * (failureOutcome) job.
 */

export type { TraceObserver } from '../trace/observer';

export interface PipelineDeps {
  /** The ERP's connection (limits, credentials, caches), shared by the engine's requests to that ERP. */
  readonly connection: ErpConnection;
  readonly observer?: TraceObserver;
  /** Outbound calls are logged here (with their attempt counts); silent when absent. */
  readonly log?: Logger;
  readonly requestId?: string;
  readonly idempotencyKey?: string;
  /** The span the ERP calls are made under; see CallEnv. */
  readonly trace?: TraceContext;
  /** Overrides the operation's deadlineMs (an outbox delivery must end within its lease). */
  readonly deadlineMs?: number;
  /** Aborted when the platform has gone: no further call is made for it. */
  readonly abandoned?: AbortSignal;
  readonly onCall?: (report: CallReport) => void;
  /** A record left out of a list answer (onInvalidRecord: skip), after it was logged. */
  readonly onSkipped?: (record: SkippedRecord) => void;
}

/** An output problem speaks of the mapping: the classic JSONata surprise is a path over a one-element list, which yields the element itself. */
function ofTheMapping(message: string): string {
  return message === MUST_BE_A_LIST ? `${MUST_BE_A_LIST} (JSONata gives a single value for a one-element result: wrap the expression in [ ])` : message;
}

/** JSONata gives a lone object for a one-element result and nothing for none; a list route wants a list. */
function asDeclaredShape(data: unknown, expectsList: boolean): unknown {
  if (!expectsList) return data === undefined ? null : data;
  if (data === undefined || data === null) return [];
  return Array.isArray(data) ? data : [data];
}

export async function runFlow(
  operation: FlowOperation,
  input: unknown,
  checkData: Validator | undefined,
  deps: PipelineDeps,
): Promise<Outcome> {
  const { route } = operation;
  const calls: Record<string, CallRecord | readonly CallRecord[]> = {};
  const rules: CallRules = { outcomes: operation.outcomes, successResult: route.successResult, emptyAnswerOk: route.kind === 'event' };
  const env: CallEnv = { connection: deps.connection, deadline: new Deadline(deps.deadlineMs ?? operation.deadlineMs, undefined, deps.abandoned), observer: deps.observer, log: deps.log, requestId: deps.requestId, idempotencyKey: deps.idempotencyKey, trace: deps.trace, onCall: deps.onCall };
  let successMessage: string | null = null;
  /** Calls the ERP answered that can change it: a failure after them must not invite a blind retry. */
  const taken: string[] = [];

  for (const call of operation.calls) {
    const made = await runCall(call, rules, { input, calls }, env);
    if (!made) continue;
    const { record, decision } = made;
    calls[call.name] = record;
    if (call.method !== 'GET' && route.method !== 'GET') taken.push(`calls.${call.name} (${call.method})`);
    if (decision) {
      if (decision.rule.result !== route.successResult) return { resultName: decision.rule.result, externalMessage: decision.message };
      successMessage = decision.message;
      break; // a rule that declares success ends the call sequence
    }
  }

  if (route.kind === 'event' || !operation.output) return { resultName: route.successResult, externalMessage: successMessage };
  try {
    return await answerOf(operation, input, calls, checkData, deps, env, successMessage);
  } catch (error) {
    throw taken.length > 0 && error instanceof OperationFailure ? afterWrite(error, taken) : error;
  }
}

/**
 * A failure of the output (its expression, its contract check) after the ERP answered a call that can
 * change it: the platform and the journal are told that the ERP has taken the write, so nobody sends the
 * request again blindly (a second step confirmation at the ERP). The mapping is what needs fixing.
 */
function afterWrite(failure: OperationFailure, taken: readonly string[]): OperationFailure {
  const told = `the external system has already taken this request (${taken.join(', ')} answered as a success), but the adapter could not build its answer to the platform; do not send it again before checking the external system`;
  return new OperationFailure(failure.kind, `${told}: ${failure.message}`, failure.problems, failure.answer, { ...failure.details, externalMessage: told });
}

async function answerOf(operation: FlowOperation, input: unknown, calls: Record<string, CallRecord | readonly CallRecord[]>, checkData: Validator | undefined, deps: PipelineDeps, env: CallEnv, successMessage: string | null): Promise<Outcome> {
  const { route } = operation;
  if (!operation.output) return { resultName: route.successResult, externalMessage: successMessage };
  // The output reads the session its calls used (kept, so no new login), when the system has one.
  const context = operation.calls.length > 0 ? await withSession({ input, calls }, env) : { input, calls };
  const raw = await evaluateSeen(operation.output, context, 'output', deps.observer);
  let data = asDeclaredShape(raw, (route.dataSchema as { type?: string }).type === 'array');
  deps.observer?.output?.(data);
  // What the skip's last check found in the list it leaves (none, or a problem of the list itself): the
  // contract check below is that same check of that same list, so it is not run twice over every record.
  let checked: readonly Problem[] | undefined;
  if (operation.onInvalidRecord === 'skip' && checkData && Array.isArray(data)) {
    const { kept, skipped, problems } = await withoutInvalidRecords(data, checkData);
    for (const record of skipped) {
      const name = record.number === undefined ? `record ${record.index}` : `record ${record.number}`;
      const why = record.problems.slice(0, 3).map((p) => `${p.path} ${p.message}`).join('; ');
      deps.log?.warn({ operation: route.operationId, record: record.number, index: record.index, problems: record.problems }, `${name} left out of the answer (onInvalidRecord: skip): ${why}`);
      deps.observer?.skipped?.(`data[${record.index}]`, `${name} left out (onInvalidRecord: skip): ${why}`);
      deps.onSkipped?.(record);
    }
    data = kept;
    checked = problems;
  }
  const fields = operation.outputFields ?? [];
  const madeAt = (path: string) => (fieldFor(fields, path) ?? { origin: operation.output?.origin }).origin;
  const problems: Problem[] = checkData ? (checked ?? (await checkData.inSlices(data))).map((p) => ({ path: `data${p.path === '/' ? '' : p.path}`, message: ofTheMapping(p.message), madeAt: madeAt(p.path) })) : [];
  deps.observer?.check?.(problems);
  if (problems.length > 0) {
    throw new OperationFailure('OUTPUT_INVALID', `the output does not match the contract: ${problems.slice(0, 3).map((p) => `${p.path} ${p.message}`).join('; ')}`, problems);
  }
  return { resultName: route.successResult, data, externalMessage: successMessage };
}

/**
 * An outbox event delivered through its operation's calls. Success is the route's success only: an
 * outcome rule that gives another result (the ERP said no in its own way) fails the delivery with the
 * rule's message, so the event is dead-lettered with the ERP's answer, never recorded as delivered.
 */
export async function deliverEvent(operation: FlowOperation, input: unknown, checkData: Validator | undefined, deps: PipelineDeps): Promise<void> {
  const outcome = await runFlow(operation, input, checkData, deps);
  if (outcome.resultName === operation.route.successResult) return;
  const words = outcome.externalMessage ?? 'no message';
  const message = `the external system did not take the event: an outcome rule gave ${outcome.resultName} (${words})`;
  throw new OperationFailure('ERP_REFUSED', message, [{ path: '', message }], undefined, { refusal: { externalMessage: outcome.externalMessage ?? null, retryable: false } });
}
