/**
 * What keeps one interpreter evaluation from hurting the others: JSONata calls this after every
 * evaluation step (its `__evaluate_exit` hook, which it awaits), so that
 * - the evaluation lets the event loop run every YIELD_AFTER_MS: JSONata's interpreter is async, but only
 *   through promises, which never let a timer or a socket in; without this a 5 s runaway is a 5 s freeze
 *   of every request of the process, even though its time limit stops it in the end;
 * - a text or a list a step built cannot grow past the limits: a doubling `$s & $s` reaches V8's own
 *   maximum within a few steps, and the next built-in that copies such a text ends the process with a
 *   fatal out-of-memory (JSONata's `$length` did, before guarded-texts.ts).
 * Steps that only read a value (a field, a variable) are not measured: a large input is not the
 * expression's doing.
 */

import { SLICE_MS } from '../time-slices';
import { pauseEvaluation } from './own-time';

export interface GuardLimits {
  readonly maxTextLength: number;
  readonly maxSequence: number;
}

/** How long an evaluation runs before it lets the event loop turn: the engine's one slice length. */
export const YIELD_AFTER_MS = SLICE_MS;

/** Thrown when a step built a text or a list over the limit; the request fails with this message. */
export class ExpressionLimitError extends Error {
  constructor(
    readonly limit: 'text' | 'list',
    message: string,
  ) {
    super(message);
    this.name = 'ExpressionLimitError';
  }
}

export function textTooLong(length: number, max: number): ExpressionLimitError {
  return new ExpressionLimitError('text', `the expression built a text of ${length} characters; the limit is ${max} (a $pad, $join or & that grows without bound?)`);
}

interface Step {
  readonly type?: string;
}

interface Environment {
  readonly base: object;
}

interface Clock {
  steps: number;
  since: number;
}

const READS = new Set(['path', 'name', 'variable', 'string', 'number', 'value', 'regex']);

/** How often (in steps) the clock is read: a step is a few microseconds at most. */
const STEPS_PER_CLOCK_READ = 64;

export function evaluationGuard(limits: GuardLimits): (step: Step, input: unknown, environment: Environment, result: unknown) => Promise<void> | undefined {
  // Per evaluation: JSONata gives every evaluation its own `base` environment.
  const clocks = new WeakMap<object, Clock>();
  return (step, _input, environment, result) => {
    if (!READS.has(step.type as string)) {
      if (typeof result === 'string') {
        if (result.length > limits.maxTextLength) throw textTooLong(result.length, limits.maxTextLength);
      } else if (Array.isArray(result) && limits.maxSequence > 0 && result.length > limits.maxSequence) {
        throw new ExpressionLimitError('list', `the expression built a list of ${result.length} items; the limit is ${limits.maxSequence}`);
      }
    }
    let clock = clocks.get(environment.base);
    if (!clock) {
      clock = { steps: 0, since: Date.now() };
      clocks.set(environment.base, clock);
    }
    if (++clock.steps % STEPS_PER_CLOCK_READ !== 0 || Date.now() - clock.since < YIELD_AFTER_MS) return undefined;
    const turned = clock;
    return pauseEvaluation().then(() => {
      turned.since = Date.now();
    });
  };
}
