import { ownRegexOf } from '../regex';
import { FALLBACK, apply, arityOf, checkClock, createSequence, emptyObject, fastFunction, toBoolean, type JsonataFunction, type Run } from './runtime';

/**
 * Synchronous twins of JSONata's built-ins that take a function ($map, $filter, $single, $reduce, $sift,
 * $each, $sort) or a matcher ($contains): jsonata 2.2.2 writes them async (functions.js), so that a
 * function argument may answer with a promise. The fast path's function values answer synchronously,
 * so each is the original, line for line, without the awaits: the same calls, in the same order, with
 * the same arguments (hofFuncArgs), and the same errors (thrown; the interpreter's rerun reports them).
 * They run with the fast path's `this` (runtime.ts's Run.focus), which carries the run. `$now` and
 * `$millis` are here too: JSONata's answer the time its evaluation started, these the fast path's.
 */
interface FastFocus {
  readonly run: Run;
  readonly environment: { readonly timestamp: Date };
}

type Implementation = (this: FastFocus, ...args: never[]) => unknown;

function tick(run: Run): void {
  if ((++run.ticks & 1023) === 0) checkClock(run);
}

/** func.apply(this, args) of functions.js: a wrapped function argument, or a lambda handed on by a tail call. */
function call(run: Run, func: unknown, args: unknown[]): unknown {
  tick(run);
  return typeof func === 'function' ? (func as (...params: unknown[]) => unknown)(...args) : apply(run, func, args, null);
}

/** hofFuncArgs: the value, then the index and the whole list if the function takes them. */
function hofArgs(func: unknown, value: unknown, index: unknown, whole: unknown): unknown[] {
  const args = [value];
  const arity = arityOf(func);
  if (arity >= 2) args.push(index);
  if (arity >= 3) args.push(whole);
  return args;
}

function map(this: FastFocus, list: unknown[] | undefined, func: unknown): unknown {
  if (list === undefined) return undefined;
  const result = createSequence(this.run);
  for (let index = 0; index < list.length; index++) {
    const value = call(this.run, func, hofArgs(func, list[index], index, list));
    if (value !== undefined) result.push(value);
  }
  return result;
}

function filter(this: FastFocus, list: unknown[] | undefined, func: unknown): unknown {
  if (list === undefined) return undefined;
  const result = createSequence(this.run);
  for (let index = 0; index < list.length; index++) {
    const entry = list[index];
    if (toBoolean(call(this.run, func, hofArgs(func, entry, index, list)))) result.push(entry);
  }
  return result;
}

function single(this: FastFocus, list: unknown[] | undefined, func?: unknown): unknown {
  if (list === undefined) return undefined;
  let found = false;
  let result: unknown;
  for (let index = 0; index < list.length; index++) {
    const entry = list[index];
    const positive = func === undefined ? true : toBoolean(call(this.run, func, hofArgs(func, entry, index, list)));
    if (!positive) continue;
    if (found) throw FALLBACK; // D3138
    result = entry;
    found = true;
  }
  if (!found) throw FALLBACK; // D3139
  return result;
}

function reduce(this: FastFocus, list: unknown[] | undefined, func: unknown, init?: unknown): unknown {
  if (list === undefined) return undefined;
  const arity = arityOf(func);
  if (arity < 2) throw FALLBACK; // D3050
  let result: unknown;
  let index: number;
  if (init === undefined && list.length > 0) {
    result = list[0];
    index = 1;
  } else {
    result = init;
    index = 0;
  }
  for (; index < list.length; index++) {
    const args = [result, list[index]];
    if (arity >= 3) args.push(index);
    if (arity >= 4) args.push(list);
    result = call(this.run, func, args);
  }
  return result;
}

function objectKeys(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value) : [];
}

function sift(this: FastFocus, object: unknown, func: unknown): unknown {
  const result = emptyObject();
  const record = object as Record<string, unknown>;
  for (const key of objectKeys(object)) {
    const entry = record[key];
    if (toBoolean(call(this.run, func, hofArgs(func, entry, key, object)))) result[key] = entry;
  }
  return Object.keys(result).length === 0 ? undefined : result;
}

function each(this: FastFocus, object: unknown, func: unknown): unknown {
  const result = createSequence(this.run);
  const record = object as Record<string, unknown>;
  for (const key of objectKeys(object)) {
    const value = call(this.run, func, hofArgs(func, record[key], key, object));
    if (value !== undefined) result.push(value);
  }
  return result;
}

function isNumeric(value: unknown): boolean {
  if (typeof value !== 'number' || Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) throw FALLBACK; // D1001
  return true;
}

/**
 * JSONata's merge sort with the same comparisons in the same order (msort: the left half, then the right,
 * then the merge), on indices rather than copies, as guarded-builtins.ts's sortWith. `swap(a, b)` true
 * puts b first.
 */
export function mergeSort(run: Run, list: readonly unknown[], swap: (a: unknown, b: unknown) => unknown): unknown[] {
  const work = list.slice();
  const buffer = new Array<unknown>(work.length);
  const msort = (start: number, end: number): void => {
    if (end - start <= 1) return;
    const middle = start + Math.floor((end - start) / 2);
    msort(start, middle);
    msort(middle, end);
    let left = start;
    let right = middle;
    let out = start;
    while (left < middle && right < end) {
      tick(run);
      buffer[out++] = toTruth(swap(work[left], work[right])) ? work[right++] : work[left++];
    }
    while (left < middle) buffer[out++] = work[left++];
    while (right < end) buffer[out++] = work[right++];
    for (let index = start; index < end; index++) work[index] = buffer[index];
  };
  msort(0, work.length);
  return work;
}

/** `if (await comp(l, r))`: JavaScript's truth of the comparator's answer. */
function toTruth(value: unknown): boolean {
  return Boolean(value);
}

/** About 10 ms of native sorting. */
const NATURAL_SORT_MAX = 50_000;

function sort(this: FastFocus, list: unknown[] | undefined, comparator?: unknown): unknown {
  if (list === undefined) return undefined;
  if (list.length <= 1) return list;
  // The guarded $sort refuses a list over the sequence limit (the interpreter's rerun reports it).
  if (this.run.maxSequence && list.length > this.run.maxSequence) throw FALLBACK;
  if (comparator === undefined) {
    let numbers = true;
    for (const item of list) if (!isNumeric(item)) numbers = false;
    if (!numbers && !list.every((item) => typeof item === 'string')) throw FALLBACK; // D3070
    // Numbers or texts: a total order, so any stable sort gives the merge sort's answer. A list too long to sort
    // within one slice is the guarded $sort's, which sorts in slices on the interpreter.
    if (list.length > NATURAL_SORT_MAX) throw FALLBACK;
    return list.slice().sort((a, b) => ((a as number) > (b as number) ? 1 : (b as number) > (a as number) ? -1 : 0));
  }
  return mergeSort(this.run, list, (a, b) => call(this.run, comparator, [a, b]));
}

/** evaluateMatcher: a matcher's answer must look like a match (T1010). */
function matched(result: unknown): unknown {
  const found = result as { start?: unknown; end?: unknown; groups?: unknown; next?: unknown } | undefined;
  if (found && !(typeof found.start === 'number' || found.end === 'number' || Array.isArray(found.groups) || typeof found.next === 'function' || (found.next as { _jsonata_function?: unknown } | undefined)?._jsonata_function === true)) throw FALLBACK;
  return result;
}

function contains(this: FastFocus, text: string | undefined, token: unknown): unknown {
  if (text === undefined || token === undefined) return undefined;
  if (typeof token === 'string') return text.indexOf(token) !== -1;
  const own = ownRegexOf(token);
  if (own !== undefined) {
    // The matcher's one `exec`, without its match object: any match has the shape evaluateMatcher asks for.
    tick(this.run);
    own.regex.lastIndex = 0;
    return own.regex.test(text);
  }
  return matched(call(this.run, token, [text])) !== undefined;
}

/**
 * $replace: the guarded one (guarded-patterns.ts), but for a text pattern with a function as replacement,
 * where JSONata writes the function's JavaScript source into the answer: the interpreter's, not ours.
 */
function replace(this: FastFocus, text: unknown, pattern: unknown, replacement: unknown, limit?: unknown): unknown {
  if (typeof pattern === 'string' && typeof replacement === 'function') throw FALLBACK;
  return (fastFunction('replace') as JsonataFunction).implementation.call(this, text, pattern, replacement, limit);
}

function now(this: FastFocus, picture?: string, timezone?: string): unknown {
  return (fastFunction('fromMillis') as JsonataFunction).implementation.call(this, this.environment.timestamp.getTime(), picture, timezone);
}

function millis(this: FastFocus): unknown {
  return this.environment.timestamp.getTime();
}

/** The twins by built-in name; each takes the original's parsed signature (higherOrderTwin). */
const IMPLEMENTATIONS: Readonly<Record<string, Implementation>> = { map, filter, single, reduce, sift, each, sort, contains, replace, now, millis } as Record<string, Implementation>;

export const HIGHER_ORDER_NAMES: readonly string[] = Object.keys(IMPLEMENTATIONS);

/** The twin of an original function object: same signature, synchronous implementation. */
export function higherOrderTwin(name: string, original: JsonataFunction): JsonataFunction {
  return Object.freeze({ _jsonata_function: true, implementation: IMPLEMENTATIONS[name] as JsonataFunction['implementation'], signature: original.signature });
}
