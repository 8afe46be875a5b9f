import type { RetryPolicy } from '../mapping/model';
import { TransportError, type OutboundResponse, type TransportErrorCode } from './client';
import type { Deadline } from './deadline';

/**
 * Repeats one request on transport failures, 429 and 503, and on an answer the mapping reads as "wait"
 * (a refusal whose retryable gives true, GraphQL's THROTTLED), with exponential backoff and jitter,
 * honouring `Retry-After` (or the wait the answer asks for) up to a cap. Whether a request may be
 * repeated at all is already in the policy (attempts is 1 for a request the mapping did not mark safe).
 */

/** An answer that asks to be asked again later, as the pipeline reads it: how long, when it says. */
export interface WaitAsked {
  readonly ms?: number;
}

/** What happened in one attempt, for the log and the dry-run trace. */
export interface AttemptReport {
  readonly attempt: number;
  readonly of: number;
  readonly status?: number;
  /** Transport error code when no answer arrived. */
  readonly error?: TransportErrorCode;
  /** Set when another attempt follows after this wait. */
  readonly retryInMs?: number;
  /** Why no further attempt follows although the answer was retryable (Retry-After too long, deadline). */
  readonly gaveUp?: string;
  /** The attempt's OAuth 1.0a Authorization header without its signature, for the trace. */
  readonly signed?: string;
}

const RETRYABLE_TRANSPORT: ReadonlySet<TransportErrorCode> = new Set(['TIMEOUT', 'REFUSED', 'RESET', 'NETWORK']);
/** Statuses tried again; a replay of recorded answers (testing/recorded-case.ts) gives them as often. */
export const RETRYABLE_STATUS: ReadonlySet<number> = new Set([429, 503]);

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // "Equal jitter": never less than half the exponential delay, so retries of a burst spread out.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withRetry(
  policy: RetryPolicy,
  deadline: Deadline,
  label: string,
  attemptOnce: () => Promise<OutboundResponse>,
  onAttempt: (report: AttemptReport) => void,
  asksToWait?: (response: OutboundResponse) => Promise<WaitAsked | undefined>,
): Promise<{ response: OutboundResponse; attempts: number; waitRefused?: string }> {
  for (let attempt = 1; ; attempt += 1) {
    let response: OutboundResponse | undefined;
    let failure: TransportError | undefined;
    try {
      response = await attemptOnce();
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      failure = error;
    }
    const base = { attempt, of: policy.attempts, status: response?.status, error: failure?.code };
    const byStatus = failure ? RETRYABLE_TRANSPORT.has(failure.code) : RETRYABLE_STATUS.has(response?.status ?? 0);
    // The answer's own "wait" (a refusal inside a 200): asked only of an answer no status rule repeats.
    const wait = !byStatus && response && asksToWait ? await asksToWait(response) : undefined;
    let gaveUp: string | undefined;
    let stoppedByDeadline = deadline.remainingMs() < 1;
    if (wait && attempt >= policy.attempts) gaveUp = `the external system asked to wait${wait.ms === undefined ? '' : ` ${wait.ms} ms`} after ${attempt} ${attempt === 1 ? 'attempt' : 'attempts'} (retry.attempts is ${policy.attempts}${policy.attempts === 1 ? '; a POST is repeated only with retry.idempotent: true' : ''})`;
    if ((byStatus || wait) && attempt < policy.attempts) {
      const asked = wait ? wait.ms : response ? retryAfterMs(response.headers['retry-after']) : undefined;
      const delay = asked ?? backoffMs(policy, attempt);
      const named = wait ? `the external system asked to wait ${delay} ms` : `Retry-After of ${asked} ms`;
      if (asked !== undefined && asked > policy.retryAfterMaxMs) gaveUp = `${named}, longer than retryAfterMaxMs (${policy.retryAfterMaxMs} ms)`;
      else if (delay >= deadline.remainingMs()) {
        gaveUp = wait ? `${named}, which would pass the operation's deadline (${Math.max(0, Math.floor(deadline.remainingMs()))} ms left of ${deadline.limitMs} ms)` : `waiting ${delay} ms would pass the operation's deadline`;
        stoppedByDeadline = true;
      }
      else {
        onAttempt({ ...base, retryInMs: delay });
        await sleep(delay);
        continue;
      }
    }
    onAttempt({ ...base, gaveUp });
    // No answer, and the deadline is why no (further) attempt was possible: say so, not "timeout".
    if (failure && stoppedByDeadline) throw deadline.failure(label);
    if (failure) throw failure;
    return { response: response as OutboundResponse, attempts: attempt, ...(wait && gaveUp ? { waitRefused: gaveUp } : {}) };
  }
}
