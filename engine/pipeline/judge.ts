import { OperationFailure, type FailureKind } from '../errors';
import { EMPTY_BODY } from '../http/client';
import { maskOAuthSignatures } from '../mapping/mask';
import type { AuthSpec, CallSpec, OutcomeRule } from '../mapping/model';
import { evaluateAt } from '../mapping/evaluate';
import type { CallRecord, ExpressionContext } from './context';
import type { Answer, CallEnv } from './fetch-call';
import { refusalFor } from './refusal';

/**
 * One answer judged, in one order (docs/connecting-an-erp.md, "The order an answer is judged in"):
 *
 * 1. an XML document that cannot be read fails the call, before any rule sees it;
 * 2. whether the ERP refused: its refusal rule (the call's own, else the system's), an unclaimed SOAP
 *    fault, an error status, a body that cannot be read;
 * 3. the operation's outcome rules, in order. A refused answer may be re-classified only to a failure
 *    result (an unknown order's `WorkOrderDoesNotExist`, with the ERP's words when the rule has none): a
 *    rule whose result is the route's success never sees it, so `$count(response.body.result) = 0` cannot
 *    turn an error inside a 200 into an empty success. An authentication failure (401, 403, 407) is
 *    claimed only by a rule that tests `response.status`: "no such line" must not claim a wrong password;
 * 4. what no rule claimed: the refusal's failure, else a success.
 */

export interface Decision {
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

export type Verdict = { readonly decision?: Decision; readonly failure?: OperationFailure };

/** Statuses that say the ERP (or a proxy, 407) did not accept the engine's credentials. */
const AUTH_STATUSES: ReadonlySet<number> = new Set([401, 403, 407]);

/** The platform's words for an authentication failure: the operator at a scanner sees why nothing works. */
function credentialsRefused(status: number): string {
  return status === 407
    ? 'a proxy between the adapter and the external system refused the adapter\'s credentials (HTTP 407)'
    : `the external system refused the adapter's credentials (HTTP ${status})`;
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

/** Text of a message expression's value; nothing gives null. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A SOAP fault of the answer (response.fault), as a refusal with its faultstring. */
function byFault(record: CallRecord): { readonly message: string | null; readonly retryable: boolean } | undefined {
  const fault = record.fault as { readonly string?: unknown } | undefined;
  if (!fault) return undefined;
  return { message: typeof fault.string === 'string' && fault.string !== '' ? fault.string : null, retryable: false };
}

/** The answer says it is XML (its content type) but could not be read: malformed, truncated, a DOCTYPE, past a limit. */
const XML_CONTENT = /^(?:text|application)\/(?:[\w.+-]*\+)?xml\s*(?:;|$)/i;
const unreadableXml = (call: CallSpec, answer: Answer): boolean =>
  call.responseType === 'xml' && answer.bodyError !== undefined && answer.bodyError !== EMPTY_BODY && XML_CONTENT.test(answer.record.headers['content-type'] ?? '');

/** What the platform is told of a body that cannot be read; an XML call's bodyError says what was wrong (fetch-call.ts). */
function unreadableTold(call: CallSpec, answer: Answer): string {
  const { status, headers } = answer.record;
  if (answer.bodyError === EMPTY_BODY) return `the external system answered ${status} with an empty body; ${call.responseType === 'xml' ? 'an XML document' : 'a JSON body'} was expected`;
  if (call.responseType === 'xml') return `the external system answered ${status} with ${answer.bodyError} (content-type ${headers['content-type'] || 'none'})`;
  return `the external system answered ${status} with a body that is not ${/not JSON/.test(answer.bodyError ?? '') ? 'JSON' : 'what the call expects'} (content-type ${headers['content-type'] || 'none'})`;
}

/**
 * Whether the ERP refused the answer, before any outcome rule: the failure it is when no rule claims it.
 * The refusal rule is the call's (`call.refusal`: the call's own, else the system's, chosen at load).
 */
async function refusalOf(call: CallSpec, rules: CallRules, label: string, answer: Answer, context: ExpressionContext, env: CallEnv): Promise<OperationFailure | undefined> {
  const { status, headers, body } = answer.record;
  const auth = env.connection.system.auth;
  // A refusal inside an answer, whatever its status: JSON-RPC's {"error": ...} in a 200, a SOAP fault.
  // A GraphQL call without a rule of its own is judged by GraphQL's (errors[], userErrors): pipeline/refusal.ts.
  const byRule = answer.bodyError === undefined ? await refusalFor(call, context, label) : undefined;
  const refused = byRule ?? byFault(answer.record);
  if (refused) {
    // A 401, 403 or 407 says first that the credentials were refused, then the ERP's words if any.
    const credentials = AUTH_STATUSES.has(status) ? credentialsRefused(status) : undefined;
    const externalMessage = credentials && refused.message ? `${credentials}: ${refused.message}` : (credentials ?? refused.message);
    // A "wait" that could not be waited for says how long the system asked to wait, and why the engine did not.
    const words = `${externalMessage ?? 'no message'}${answer.waitRefused ? `; ${answer.waitRefused}` : ''}`;
    const how = !byRule ? 'a SOAP fault' : call.refusal ? `refusal rule at ${call.refusal.when.origin.line}:${call.refusal.when.origin.col}` : 'a GraphQL error';
    const summary = { call: label, status, body: bodyText(body) };
    const logged = maskCredentials(`the external system refused ${answer.target} (status ${status}; ${how}): ${words}`, auth);
    return new OperationFailure('ERP_REFUSED', logged, [{ path: `calls.${label}`, message: `the external system refused: ${maskCredentials(words, auth)}` }], summary, { refusal: { externalMessage, retryable: refused.retryable } });
  }
  // `logged` (the failure's message) keeps the ERP's path, redirect target and body preview for the log,
  // with the mapping's credentials masked; `told` (validationStatus) names only the call and the status.
  // The summary (with the body as text) is made for a failure only: made for every answer, it wrote the
  // ERP's answer as JSON once more on every successful call.
  const fail = (kind: FailureKind, logged: string, told: string, externalMessage?: string) => {
    const summary = { call: label, status, retryAfterMs: retryAfterMs(headers['retry-after']), body: bodyText(body) };
    return new OperationFailure(kind, maskCredentials(logged, auth), [{ path: `calls.${label}`, message: told }], summary, { externalMessage });
  };
  // Redirects are never followed (see http/client.ts), so a 3xx is not the answer either: without this
  // an empty 302 would pass as a successful empty list.
  if (status >= 300) {
    const redirect = (to: string) => (status < 400 ? ` (a redirect${to}; redirects are not followed, check system.baseUrl)` : '');
    const credentials = AUTH_STATUSES.has(status) ? credentialsRefused(status) : undefined;
    return fail('ERP_ERROR_STATUS', `the external system answered ${status} to ${answer.target}${redirect(headers.location ? ` to ${headers.location}` : '')}`, `the external system answered ${status}${redirect('')}`, credentials);
  }
  if (answer.bodyError === EMPTY_BODY && rules.emptyAnswerOk) return undefined;
  if (answer.bodyError !== undefined) return fail('ERP_BODY_UNREADABLE', `${answer.target}: ${answer.bodyError}`, unreadableTold(call, answer));
  return undefined;
}

/** Whether a rule may claim this answer (see the order at the top). */
function mayClaim(rule: OutcomeRule, refused: boolean, status: number, successResult: string): boolean {
  if (refused && rule.result === successResult) return false;
  return !AUTH_STATUSES.has(status) || rule.readsStatus;
}

async function firstMatchingRule(rules: CallRules, refused: boolean, context: ExpressionContext, label: string, env: CallEnv): Promise<OutcomeRule | undefined> {
  const status = context.response?.status ?? 0;
  for (const [index, rule] of rules.outcomes.entries()) {
    if (!mayClaim(rule, refused, status, rules.successResult)) continue;
    const matched = (await evaluateAt(rule.when, context, `outcomes[${index}].when`)) === true;
    env.observer?.ruleChecked?.(label, index, rule, matched);
    if (matched) return rule;
  }
  return undefined;
}

export async function judge(call: CallSpec, rules: CallRules, label: string, answer: Answer, context: ExpressionContext, env: CallEnv): Promise<Verdict> {
  // An XML document that cannot be read has no view, and outcome rules must not judge its absence: a
  // "not found" rule such as $not($exists(response.result.SalesOrder)) would turn a truncated or hostile
  // answer into the ERP's verdict. It fails the call first. (An HTML error page is not XML: rules still see its status.)
  if (unreadableXml(call, answer)) return { failure: await refusalOf(call, rules, label, answer, context, env) };
  const refused = await refusalOf(call, rules, label, answer, context, env);
  const rule = await firstMatchingRule(rules, refused !== undefined, context, label, env);
  if (rule) {
    env.observer?.rule?.(label, rule);
    // A refusal re-classified keeps the ERP's words when the rule gives none.
    const message = rule.message ? textOf(await evaluateAt(rule.message, context, 'outcome message')) : (refused?.externalMessage ?? null);
    return { decision: { rule, message } };
  }
  if (refused?.kind === 'ERP_REFUSED') env.observer?.note?.(`calls.${label}: ${refused.message}`);
  return refused ? { failure: refused } : {};
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
