import { DeadlinePassed, RequestAbandoned } from './faults';

/**
 * The time budget of one contract request (operation `deadlineMs`): every attempt's timeout is cut to
 * what is left, and nothing new starts once it has passed. Without a deadline only per-call timeouts apply.
 */
export class Deadline {
  private readonly endsAt: number;

  /** `abandoned`: aborted when the platform closes the connection; no call starts after that, and the one under way is cut off (client.ts). */
  constructor(readonly limitMs?: number, private readonly now: () => number = () => performance.now(), readonly abandoned?: AbortSignal) {
    this.endsAt = limitMs === undefined ? Infinity : now() + limitMs;
  }

  remainingMs(): number {
    return this.endsAt - this.now();
  }

  /** The timeout of one attempt: the call's own, or what is left of the deadline if less. Throws once passed. */
  timeoutFor(callTimeoutMs: number, label: string): number {
    if (this.abandoned?.aborted) throw new RequestAbandoned(label);
    const remaining = this.remainingMs();
    if (remaining < 1) throw this.failure(label);
    return Math.max(1, Math.min(callTimeoutMs, Math.floor(remaining)));
  }

  failure(label: string, waiting?: string): DeadlinePassed {
    return new DeadlinePassed(this.limitMs, label, waiting);
  }
}
