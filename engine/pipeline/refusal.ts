import { evaluateAt } from '../mapping/evaluate';
import type { RefusalSpec } from '../mapping/model';
import type { ExpressionContext } from './context';

/**
 * A system's refusal inside an answer, read by the mapping's rule (system.refusal, or the call's own):
 * whether the answer refuses, in which words, whether the refusal passes (retryable) and how long the
 * system asks to wait. Read after the answer (run-call.ts judges it) and after each attempt, where a
 * refusal that passes is waited for and asked again (http/with-retry.ts).
 */
export interface Refused {
  readonly message: string | null;
  /** Whether an outbox delivery tries again later (the rule's retryable, else what the status says). */
  readonly retryable: boolean;
  /** The rule's retryable gave true: the system said "wait", so a direct call is tried again too. */
  readonly asksToWait: boolean;
  /** How long the system asked to wait (retryAfterMs), when it says. */
  readonly retryAfterMs?: number;
}

/** Text of a message expression's value; nothing gives null. */
export function textOf(value: unknown): string | null {
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
export async function refusalOf(refusal: RefusalSpec, context: ExpressionContext, label: string): Promise<Refused | undefined> {
  if ((await evaluateAt(refusal.when, context, `calls.${label}: refusal.when`)) !== true) return undefined;
  const message = refusal.message ? textOf(await evaluateAt(refusal.message, context, `calls.${label}: refusal.message`)) : null;
  const status = context.response?.status ?? 0;
  const asksToWait = refusal.retryable ? (await evaluateAt(refusal.retryable, context, `calls.${label}: refusal.retryable`)) === true : false;
  // Without retryable, the status decides as it would without the rule: a 503 with an error body is still "not now".
  const retryable = refusal.retryable ? asksToWait : status === 408 || status === 429 || status >= 500;
  const retryAfterMs = asksToWait && refusal.retryAfterMs ? waitOf(await evaluateAt(refusal.retryAfterMs, context, `calls.${label}: refusal.retryAfterMs`)) : undefined;
  return { message, retryable, asksToWait, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}
