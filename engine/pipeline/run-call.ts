import { OperationFailure, type FailureKind } from '../errors';
import { EMPTY_BODY } from '../http/client';
import { maskOAuthSignatures } from '../mapping/mask';
import type { AuthSpec, CallSpec, OutcomeRule } from '../mapping/model';
import type { CallRecord, ExpressionContext } from './context';
import { evaluateAt } from '../mapping/evaluate';
import { evaluateSeen } from './evaluate-seen';
import { refusalFor, textOf } from './refusal';
import { runInOrder, unitsOf, type Unit } from './fan-out';
import type { Answer, CallEnv } from './fetch-call';
import { fetchWithSession, withSession } from './session';

/**
 * One call of a flow: sent once, or once per element/chunk (forEach), each answer judged by the
 * outcome rules. A rule's decision comes back to the flow; an unclaimed error status, an unreadable
 * body or no answer at all is a failure (for fan-out: naming the element, or skipped if so declared).
 */

interface Decision {
  readonly rule: OutcomeRule;
  readonly message: string | null;
}

/** What judges a call's answers: the outcome rules, and the result that means success. */
export interface CallRules {
  readonly outcomes: readonly OutcomeRule[];
  readonly successResult: string;
  /** An event or a push needs no answer: an empty body is fine. */
  readonly emptyAnswerOk: boolean;
}

type Verdict = { readonly decision?: Decision; readonly failure?: OperationFailure };

/** Failures that belong to one element; the others (deadline, auth, page limit, mapping faults) fail the request. */
const ELEMENT_FAILURES: ReadonlySet<FailureKind> = new Set(['ERP_UNREACHABLE', 'ERP_ERROR_STATUS', 'ERP_REFUSED', 'ERP_BODY_UNREADABLE', 'REQUEST_INVALID']);

async function firstMatchingRule(rules: readonly OutcomeRule[], context: ExpressionContext, label: string, env: CallEnv): Promise<OutcomeRule | undefined> {
  for (const [index, rule] of rules.entries()) {
    const matched = (await evaluateAt(rule.when, context, `outcomes[${index}].when`)) === true;
    env.observer?.ruleChecked?.(label, index, rule, matched);
    if (matched) return rule;
  }
  return undefined;
}

async function messageOf(rule: OutcomeRule, context: ExpressionContext): Promise<string | null> {
  if (!rule.message) return null;
  return textOf(await evaluateAt(rule.message, context, 'outcome message'));
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now. */
function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The start of an answer's body, as text, for the outbox's record of the ERP's last answer (a failed or a delivered attempt's). */
export function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** A SOAP fault of the answer (response.fault), as a refusal with its faultstring. */
function faultOf(record: CallRecord): { readonly message: string | null; readonly retryable: boolean } | undefined {
  const fault = record.fault as { readonly string?: unknown } | undefined;
  if (!fault) return undefined;
  return { message: typeof fault.string === 'string' && fault.string !== '' ? fault.string : null, retryable: false };
}

/** The answer says it is XML (its content type) but could not be read: malformed, truncated, a DOCTYPE, past a limit. */
const XML_CONTENT = /^(?:text|application)\/(?:[\w.+-]*\+)?xml\s*(?:;|$)/i;
const unreadableXml = (call: CallSpec, answer: Answer): boolean =>
  call.responseType === 'xml' && answer.bodyError !== undefined && answer.bodyError !== EMPTY_BODY && XML_CONTENT.test(answer.record.headers['content-type'] ?? '');

async function judge(call: CallSpec, rules: CallRules, label: string, answer: Answer, context: ExpressionContext, env: CallEnv): Promise<Verdict> {
  // An XML document that cannot be read has no view, and outcome rules must not judge its absence: a
  // "not found" rule such as $not($exists(response.result.SalesOrder)) would turn a truncated or hostile
  // answer into the ERP's verdict. It fails the call first. (An HTML error page is not XML: rules still see its status.)
  const rule = unreadableXml(call, answer) ? undefined : await firstMatchingRule(rules.outcomes, context, label, env);
  if (rule) {
    env.observer?.rule?.(label, rule);
    return { decision: { rule, message: await messageOf(rule, context) } };
  }
  const { status, headers, body } = answer.record;
  // What no outcome rule claimed, the system's refusal rule judges before the status: its "no" inside a 200 is a failure.
  // A SOAP fault that neither claimed is a refusal in the ERP's words: never a success, never retried as a 500 would be.
  const byRule = answer.bodyError === undefined ? await refusalFor(call, context, label) : undefined;
  const refused = byRule ?? faultOf(answer.record);
  if (refused) {
    // A "wait" that could not be waited for says how long the system asked to wait, and why the engine did not.
    const words = `${refused.message ?? 'no message'}${answer.waitRefused ? `; ${answer.waitRefused}` : ''}`;
    const how = !byRule ? 'a SOAP fault' : call.refusal ? `refusal rule at ${call.refusal.when.origin.line}:${call.refusal.when.origin.col}` : 'a GraphQL error';
    env.observer?.note?.(`calls.${label}: the external system refused (${how}): ${words}`);
    const summary = { call: label, status, body: bodyText(body) };
    const logged = maskCredentials(`the external system refused ${answer.target} (status ${status}): ${words}`, env.connection.system.auth);
    return { failure: new OperationFailure('ERP_REFUSED', logged, [{ path: `calls.${label}`, message: `the external system refused: ${maskCredentials(words, env.connection.system.auth)}` }], summary, { refusal: { externalMessage: refused.message, retryable: refused.retryable } }) };
  }
  // `logged` (the failure's message) keeps the ERP's path, redirect target and body preview for the log,
  // with the mapping's credentials masked; `told` (validationStatus) names only the call and the status.
  // The summary (with the body as text) is made for a failure only: made for every answer, it wrote the
  // ERP's answer as JSON once more on every successful call.
  const fail = (kind: FailureKind, logged: string, told: string) => {
    const summary = { call: label, status, retryAfterMs: retryAfterMs(headers['retry-after']), body: bodyText(body) };
    return { failure: new OperationFailure(kind, maskCredentials(logged, env.connection.system.auth), [{ path: `calls.${label}`, message: told }], summary) };
  };
  // Redirects are never followed (see http/client.ts), so a 3xx is not the answer either: without this
  // an empty 302 would pass as a successful empty list.
  if (status >= 300) {
    const redirect = (to: string) => (status < 400 ? ` (a redirect${to}; redirects are not followed, check system.baseUrl)` : '');
    return fail('ERP_ERROR_STATUS', `the external system answered ${status} to ${answer.target}${redirect(headers.location ? ` to ${headers.location}` : '')}`, `the external system answered ${status}${redirect('')}`);
  }
  if (answer.bodyError === EMPTY_BODY && rules.emptyAnswerOk) return {};
  if (answer.bodyError !== undefined) {
    const told = answer.bodyError === EMPTY_BODY
      ? `the external system answered ${status} with an empty body; a JSON body was expected`
      : `the external system answered ${status} with a body that is not ${/not JSON/.test(answer.bodyError) ? 'JSON' : 'what the call expects'} (content-type ${headers['content-type'] || 'none'})`;
    return fail('ERP_BODY_UNREADABLE', `${answer.target}: ${answer.bodyError}`, told);
  }
  return {};
}

/**
 * The credentials the mapping declares, masked in a text bound for the log: an API key sent in the
 * query comes back in an ERP's redirect target (`Location: https://…/login?apiKey=…`).
 */
function maskCredentials(text: string, auth: AuthSpec): string {
  const secrets: string[] = [];
  if (auth.type === 'basic') secrets.push(auth.password.reveal());
  else if (auth.type === 'bearer') secrets.push(auth.token.reveal());
  else if (auth.type === 'apiKey') secrets.push(auth.value.reveal());
  else if (auth.type === 'oauth2ClientCredentials') secrets.push(auth.clientSecret.reveal());
  else if (auth.type === 'oauth1') secrets.push(auth.consumerSecret.reveal(), auth.tokenSecret.reveal());
  let masked = maskOAuthSignatures(text);
  if (auth.type === 'apiKey' && auth.in === 'query') {
    const name = auth.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    masked = masked.replace(new RegExp(`([?&]${name}=)[^&#\\s)]*`, 'gi'), '$1***');
  }
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) masked = masked.split(form).join('***');
  }
  return masked;
}

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
  return new OperationFailure(failure.kind, message, [{ path: `calls.${callName}[${unit.index}]`, message }], failure.answer, { cause: failure.cause, refusal: failure.refusal });
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
