import { evaluateAt } from '../mapping/evaluate';
import type { CallSpec, GraphqlSpec, RefusalSpec } from '../mapping/model';
import type { ExpressionContext } from './context';

/**
 * A system's refusal inside an answer, read by the mapping's rule (system.refusal, or the call's own):
 * whether the answer refuses, in which words, whether the refusal passes (retryable) and how long the
 * system asks to wait. Read after the answer (run-call.ts judges it) and after each attempt, where a
 * refusal that passes is waited for and asked again (http/with-retry.ts).
 */
interface Refused {
  readonly message: string | null;
  /** Whether an outbox delivery tries again later (the rule's retryable, else what the status says). */
  readonly retryable: boolean;
  /** The rule's retryable gave true: the system said "wait", so a direct call is tried again too. */
  readonly asksToWait: boolean;
  /** How long the system asked to wait (retryAfterMs), when it says. */
  readonly retryAfterMs?: number;
}

/** Text of a message expression's value; nothing gives null. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A wait as milliseconds: a finite number, rounded up, never below 0; anything else is no wait given. */
function waitOf(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Math.max(0, Math.ceil(value));
}

/**
 * The rule over one answer (`context.response`): undefined when it does not refuse. A rule that cannot be
 * evaluated fails the request as any expression does, never passes the answer.
 */
async function refusalOf(refusal: RefusalSpec, context: ExpressionContext, label: string): Promise<Refused | undefined> {
  if ((await evaluateAt(refusal.when, context, `calls.${label}: refusal.when`)) !== true) return undefined;
  const message = refusal.message ? textOf(await evaluateAt(refusal.message, context, `calls.${label}: refusal.message`)) : null;
  const status = context.response?.status ?? 0;
  const asksToWait = refusal.retryable ? (await evaluateAt(refusal.retryable, context, `calls.${label}: refusal.retryable`)) === true : false;
  // Without retryable, the status decides as it would without the rule: a 503 with an error body is still "not now".
  const retryable = refusal.retryable ? asksToWait : status === 408 || status === 429 || status >= 500;
  const retryAfterMs = asksToWait && refusal.retryAfterMs ? waitOf(await evaluateAt(refusal.retryAfterMs, context, `calls.${label}: refusal.retryAfterMs`)) : undefined;
  return { message, retryable, asksToWait, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

/** How long a THROTTLED answer asks to wait: the points missing at the restore rate (Shopify's extensions.cost). */
function throttledWait(body: { readonly extensions?: { readonly cost?: unknown } }): number | undefined {
  const cost = body.extensions?.cost as { requestedQueryCost?: unknown; throttleStatus?: { currentlyAvailable?: unknown; restoreRate?: unknown } } | undefined;
  const requested = cost?.requestedQueryCost;
  const available = cost?.throttleStatus?.currentlyAvailable;
  const rate = cost?.throttleStatus?.restoreRate;
  if (typeof requested !== 'number' || typeof available !== 'number' || typeof rate !== 'number' || rate <= 0) return undefined;
  return waitOf(((requested - available) / rate) * 1000);
}

interface GraphqlError {
  readonly message?: unknown;
  readonly extensions?: { readonly code?: unknown };
}

/**
 * GraphQL's own refusals: errors[] (their messages and extensions.code; THROTTLED passes, after the
 * wait its cost extension gives), a plain-text errors (Shopify's 401), and the call's userErrors.
 */
async function graphqlRefusal(spec: GraphqlSpec, context: ExpressionContext, label: string): Promise<Refused | undefined> {
  const body = context.response?.body as { readonly errors?: unknown; readonly extensions?: { readonly cost?: unknown } } | null | undefined;
  if (body === null || typeof body !== 'object') return undefined;
  const { errors } = body;
  if (typeof errors === 'string' && errors !== '') return { message: errors, retryable: false, asksToWait: false };
  if (Array.isArray(errors) && errors.length > 0) {
    const listed = errors as readonly GraphqlError[];
    const message = listed.map((error) => `${textOf(error?.message) ?? 'no message'}${typeof error?.extensions?.code === 'string' ? ` (${error.extensions.code})` : ''}`).join('; ');
    const throttled = listed.some((error) => error?.extensions?.code === 'THROTTLED');
    const wait = throttled ? throttledWait(body) : undefined;
    return { message, retryable: throttled, asksToWait: throttled, ...(wait === undefined ? {} : { retryAfterMs: wait }) };
  }
  if (!spec.userErrors) return undefined;
  const userErrors = await evaluateAt(spec.userErrors, body, `calls.${label}: userErrors`);
  const list = Array.isArray(userErrors) ? (userErrors as readonly { readonly message?: unknown; readonly field?: unknown }[]) : userErrors === undefined || userErrors === null ? [] : [userErrors as { message?: unknown }];
  if (list.length === 0) return undefined;
  const message = list.map((error) => textOf(error?.message) ?? JSON.stringify(error)).join('; ');
  return { message, retryable: false, asksToWait: false };
}

/** A call's refusal, by its own rule (or its system's), or for a GraphQL call without one by GraphQL's. */
export function refusalFor(call: CallSpec, context: ExpressionContext, label: string): Promise<Refused | undefined> {
  if (call.refusal) return refusalOf(call.refusal, context, label);
  if (call.graphql) return graphqlRefusal(call.graphql, context, label);
  return Promise.resolve(undefined);
}

/** Whether a call's answers are read for a refusal at all (a rule, or GraphQL's). */
export function refuses(call: CallSpec): boolean {
  return call.refusal !== undefined || call.graphql !== undefined;
}

/** Whether a call's refusals may ask to wait (a rule with retryable, or GraphQL's THROTTLED). */
export function mayAskToWait(call: CallSpec): boolean {
  return call.refusal ? call.refusal.retryable !== undefined : call.graphql !== undefined;
}
