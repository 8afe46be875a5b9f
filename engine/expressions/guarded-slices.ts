/**
 * What the guarded built-ins (guarded-builtins.ts, guarded-json.ts, guarded-lists.ts) share: a built-in
 * is one step for JSONata's interpreter, so neither the time limit nor the pauses of guard.ts reach inside
 * it; these helpers let a built-in work in slices instead. In the interpreter it lets the event loop turn
 * every YIELD_AFTER_MS and checks the time limit (JSONata's own D1012); on the synchronous fast path a call
 * that outlasts one slice gives up and the interpreter runs the expression instead.
 */
import { turnEventLoop } from '../time-slices';
import { ExpressionLimitError, YIELD_AFTER_MS } from './guard';

/** What JSONata passes a built-in as `this` (the fast path passes the same shape, without an environment). */
export interface Focus {
  readonly options?: { readonly sequence?: number; readonly maxTextLength?: number };
  readonly environment?: { readonly base?: { readonly guardrails?: () => void } };
  readonly createSequence?: (...items: unknown[]) => unknown[];
}

/** The fast path gave a built-in more than a slice of work: it falls back to the interpreter, which can pause. */
class FastPathSliceExceeded extends Error {
  constructor() {
    super('too much work for the synchronous fast path');
    this.name = 'FastPathSliceExceeded';
  }
}

/** Items (or comparisons, or values written) between two looks at the clock. */
export const CHECK_EVERY = 1024;

function maxSequence(focus: Focus | undefined): number {
  const limit = focus?.options?.sequence;
  return typeof limit === 'number' && limit > 0 ? limit : Infinity;
}

/** The guard's error (guard.ts): the request fails with it, as for a list a step built. */
export function refuseLongList(focus: Focus | undefined, name: string, list: readonly unknown[]): void {
  const limit = maxSequence(focus);
  if (list.length > limit) throw new ExpressionLimitError('list', `${name} was given a list of ${list.length} items; the limit is ${limit}`);
}

export function guardrailsOf(focus: Focus | undefined): (() => void) | undefined {
  const guardrails = focus?.environment?.base?.guardrails;
  return typeof guardrails === 'function' ? guardrails : undefined;
}

/**
 * Runs `work` (a bounded amount per call, true once finished) to the end. Within one slice it stays
 * synchronous, so small inputs cost nothing more; past it, the interpreter continues asynchronously with
 * its time limit checked and the event loop let in between slices, and the fast path gives up.
 */
export function drive<T>(focus: Focus | undefined, work: () => boolean, result: () => T): T | Promise<T> {
  const started = Date.now();
  while (!work()) {
    if (Date.now() - started < YIELD_AFTER_MS) continue;
    const guardrails = guardrailsOf(focus);
    if (!guardrails) throw new FastPathSliceExceeded();
    return (async () => {
      for (;;) {
        await turnEventLoop();
        guardrails();
        const since = Date.now();
        for (;;) {
          if (work()) return result();
          if (Date.now() - since >= YIELD_AFTER_MS) break;
        }
      }
    })();
  }
  return result();
}

/** Steps between two looks at the clock in driveSteps: a step is one match or one key, microseconds at most. */
const STEPS_PER_CLOCK_READ = 64;

/**
 * drive() for work whose steps may wait: a matcher or a replacement that is a JSONata function answers
 * with a promise. `step` does one small piece (a match, a key) and answers true once finished, or a
 * promise of that. Synchronous while no step waits and the work fits in a slice, as drive().
 */
export function driveSteps<T>(focus: Focus | undefined, step: () => boolean | PromiseLike<boolean>, result: () => T): T | Promise<T> {
  const started = Date.now();
  for (let steps = 1; ; steps++) {
    const done = step();
    if (isThenable(done)) return stepsAfter(focus, done, step, result, started);
    if (done) return result();
    if (steps % STEPS_PER_CLOCK_READ === 0 && Date.now() - started >= YIELD_AFTER_MS) {
      if (!guardrailsOf(focus)) throw new FastPathSliceExceeded();
      return stepsAfter(focus, false, step, result, started);
    }
  }
}

async function stepsAfter<T>(focus: Focus | undefined, pending: boolean | PromiseLike<boolean>, step: () => boolean | PromiseLike<boolean>, result: () => T, started: number): Promise<T> {
  const guardrails = guardrailsOf(focus);
  let since = started;
  let done = await pending;
  for (let steps = 1; !done; steps++) {
    if (steps % STEPS_PER_CLOCK_READ === 0 && Date.now() - since >= YIELD_AFTER_MS) {
      // Without guardrails this is the fast path, which cannot wait: the interpreter runs the expression instead.
      if (!guardrails) throw new FastPathSliceExceeded();
      await turnEventLoop();
      guardrails();
      since = Date.now();
    }
    const next = step();
    done = isThenable(next) ? await next : next;
  }
  return result();
}

/** `next` of a value that drive() gave synchronously, or once its promise settles (not named `then`: a module exporting `then` is a thenable). */
export function andThen<T, U>(value: T | Promise<T>, next: (value: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

// ---------------------------------------------------------------------------------------------- values

export type Comparator = (a: unknown, b: unknown) => unknown;

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** JSONata's isNumeric: a number that is not NaN; an infinite one is an error (D1001). */
export function isNumeric(value: unknown): boolean {
  if (typeof value !== 'number' || Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) throw { code: 'D1001', value, stack: new Error().stack };
  return true;
}

export function isFunction(value: unknown): boolean {
  if (typeof value === 'function') return true;
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown } | null | undefined;
  return Boolean(flags && (flags._jsonata_function === true || flags._jsonata_lambda === true));
}

export function isSequence(value: unknown): boolean {
  return Array.isArray(value) && (value as { sequence?: unknown }).sequence === true;
}
