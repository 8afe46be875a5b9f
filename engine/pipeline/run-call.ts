import { OperationFailure, type FailureKind } from '../errors';
import type { CallSpec } from '../mapping/model';
import type { CallRecord, ExpressionContext } from './context';
import { evaluateSeen } from './evaluate-seen';
import { runInOrder, unitsOf, type Unit } from './fan-out';
import type { Answer, CallEnv } from './fetch-call';
import { judge, type CallRules, type Decision, type Verdict } from './judge';
import { fetchWithSession, withSession } from './session';

/**
 * One call of a flow: sent once, or once per element/chunk (forEach), each answer judged (judge.ts:
 * refusals first, then the outcome rules). A rule's decision comes back to the flow; an unclaimed
 * refusal, error status, unreadable body or no answer at all is a failure (for fan-out: naming the
 * element, or skipped if so declared).
 */

/** Failures that belong to one element; the others (deadline, auth, page limit, mapping faults) fail the request. */
const ELEMENT_FAILURES: ReadonlySet<FailureKind> = new Set(['ERP_UNREACHABLE', 'ERP_ERROR_STATUS', 'ERP_REFUSED', 'ERP_BODY_UNREADABLE', 'REQUEST_INVALID']);

export interface CallResult {
  readonly record: CallRecord | readonly CallRecord[];
  readonly decision?: Decision;
}

/** An answer is cached (cache:) only once it is judged: neither a failure nor a rule's other result. */
function keepIfSuccess(answer: Answer, verdict: Verdict, successResult: string): void {
  if (verdict.failure || (verdict.decision && verdict.decision.rule.result !== successResult)) return;
  answer.keep?.();
}

async function runPlain(call: CallSpec, rules: CallRules, given: ExpressionContext, env: CallEnv): Promise<CallResult> {
  const { answer, context: base } = await fetchWithSession(call, given, call.name, env);
  const verdict = await judge(call, rules, call.name, answer, { ...base, response: answer.record, call: call.name }, env);
  if (verdict.failure) throw verdict.failure;
  keepIfSuccess(answer, verdict, rules.successResult);
  return { record: answer.record, decision: verdict.decision };
}

function named(unit: Unit, callName: string, failure: OperationFailure): OperationFailure {
  const message = `calls.${callName}, ${unit.describe}: ${failure.message}`;
  return new OperationFailure(failure.kind, message, [{ path: `calls.${callName}[${unit.index}]`, message }], failure.answer, failure.details);
}

async function runFanOut(call: CallSpec, rules: CallRules, base: ExpressionContext, env: CallEnv): Promise<CallResult> {
  const forEach = call.forEach!;
  const units = unitsOf(await evaluateSeen(forEach.list, base, `calls.${call.name}.forEach.list`, env.observer), forEach);
  const successName = rules.successResult;
  const results = await runInOrder(units, forEach.maxConcurrency, async (unit) => {
    const label = `${call.name}[${unit.index}]`;
    let context: ExpressionContext = { ...base, item: unit.item, chunk: unit.chunk, index: unit.index };
    let answer: Answer;
    try {
      ({ answer, context } = await fetchWithSession(call, context, label, env));
    } catch (error) {
      if (error instanceof OperationFailure && ELEMENT_FAILURES.has(error.kind)) return { unit, label, verdict: { failure: named(unit, call.name, error) } as Verdict };
      throw error;
    }
    const record: CallRecord = { ...answer.record, ...(unit.chunk ? { chunk: unit.chunk } : { item: unit.item }), index: unit.index };
    const verdict = await judge(call, rules, label, answer, { ...context, response: record, call: call.name }, env);
    keepIfSuccess(answer, verdict, successName);
    return { unit, label, record, verdict: verdict.failure ? { failure: named(unit, call.name, verdict.failure) } : verdict };
  }, (r) => (r.verdict.decision !== undefined && r.verdict.decision.rule.result !== successName) || (r.verdict.failure !== undefined && forEach.onError === 'fail'));

  const records: CallRecord[] = [];
  let success: Decision | undefined;
  for (const result of results) {
    if (!result) continue; // not started: an earlier-finishing unit stopped the call, and is reported below
    const { decision, failure } = result.verdict;
    if (decision && decision.rule.result !== successName) return { record: records, decision };
    if (failure && forEach.onError === 'fail') throw failure;
    if (failure) {
      env.observer?.skipped?.(result.label, failure.message);
      env.log?.warn({ call: result.label, failure: failure.kind }, `skipped (onError: skip): ${failure.message}`);
      continue;
    }
    success ??= decision;
    records.push(result.record as CallRecord);
  }
  return { record: records, decision: success };
}

/** undefined when the call's `when` gives anything but true: the call is skipped and has no record. */
export async function runCall(call: CallSpec, rules: CallRules, given: ExpressionContext, env: CallEnv): Promise<CallResult | undefined> {
  const base = await withSession(given, env);
  if (call.when && (await evaluateSeen(call.when, base, `calls.${call.name}.when`, env.observer)) !== true) {
    env.observer?.skipped?.(call.name, `not made: its when (${call.when.source}) is not true`);
    return undefined;
  }
  return call.forEach ? runFanOut(call, rules, base, env) : runPlain(call, rules, base, env);
}
