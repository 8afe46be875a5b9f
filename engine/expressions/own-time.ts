import { AsyncLocalStorage } from 'node:async_hooks';
import { turnEventLoop } from '../time-slices';

/**
 * An expression's time limit counts the time it ran, not the time it waited while other requests ran:
 * on two cores with ten requests in flight, an expression that needs 0.4 s of its own took 5 s of wall
 * time and failed its limit. Every pause an evaluation makes for the event loop (the interpreter's
 * guard, a guarded built-in's slices, a sliced long list) goes through pauseEvaluation, which books the
 * wait on the evaluation's clock; the limit is checked against the rest. A second, larger bound on wall
 * time stays, so an evaluation starved for ever still ends.
 */
export class EvaluationClock {
  private waitedMs = 0;
  private runStartedAt: number;

  constructor(
    readonly limitMs: number,
    readonly wallLimitMs: number,
    readonly startedAt = Date.now(),
  ) {
    this.runStartedAt = startedAt;
  }

  /** Milliseconds the evaluation ran: wall time since it started, less its waits for the event loop. */
  ownMs(): number {
    return Date.now() - this.startedAt - this.waitedMs;
  }

  wallMs(): number {
    return Date.now() - this.startedAt;
  }

  waited(ms: number): void {
    this.waitedMs += ms;
  }

  /** One run of JSONata's interpreter begins (after a fast-path attempt, or for one slice of a long list). */
  startRun(): void {
    this.runStartedAt = Date.now();
  }

  /**
   * The timeout JSONata's own check is given (it compares the wall time since its run began): the own-time
   * limit plus the waits so far, within the wall bound, less what ran before this run. Read at each check.
   */
  jsonataTimeout(): number {
    if (this.limitMs <= 0) return 0;
    const allowed = Math.min(this.limitMs + this.waitedMs, this.wallLimitMs);
    return Math.max(1, allowed - (this.runStartedAt - this.startedAt));
  }

  /** The D1012 error JSONata throws, when the limit (own time) or the wall bound is past; else nothing. */
  check(): void {
    if (this.limitMs <= 0) return;
    if (this.ownMs() > this.limitMs) throw timeout(this.limitMs);
    if (this.wallMs() > this.wallLimitMs) throw Object.assign(new Error(`Evaluation took longer than ${this.wallLimitMs} milliseconds of wall time (limits.expressionWallTimeoutMs), most of it waiting for other requests; the server is overloaded`), { code: 'D1012' });
  }
}

function timeout(limitMs: number): Error {
  return Object.assign(new Error(`Evaluation timeout after ${limitMs} milliseconds. Check for infinite loop`), { code: 'D1012' });
}

/**
 * Per evaluation: the clock follows the evaluation's async calls, so concurrent requests never see each
 * other's. The storage holds no state of its own.
 */
const clocks = new AsyncLocalStorage<EvaluationClock>();

export function currentClock(): EvaluationClock | undefined {
  return clocks.getStore();
}

export function onClock<T>(clock: EvaluationClock, run: () => T): T {
  return clocks.run(clock, run);
}

/** Lets the event loop turn, and books the wait on the running evaluation's clock (not its own time). */
export async function pauseEvaluation(): Promise<void> {
  const since = Date.now();
  await turnEventLoop();
  currentClock()?.waited(Date.now() - since);
}
