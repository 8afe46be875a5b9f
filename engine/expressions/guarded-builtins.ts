import { isDeepEqual } from './deep-equal';
import { YIELD_AFTER_MS } from './guard';
import { EVAL_BUILTINS } from './guarded-eval';
import { JSON_BUILTINS } from './guarded-json';
import { LIST_BUILTINS } from './guarded-lists';
import { OBJECT_BUILTINS } from './guarded-objects';
import { PATTERN_BUILTINS } from './guarded-patterns';
import { TEXT_BUILTINS } from './guarded-texts';
import { pauseEvaluation } from './own-time';
import { CHECK_EVERY, drive, guardrailsOf, isNumeric, isSequence, isThenable, refuseLongList, type Comparator, type Focus } from './guarded-slices';

/**
 * Replacements for JSONata built-ins whose own implementation (jsonata 2.2.2) escapes the guard: a
 * built-in is one step for the interpreter, so neither the time limit nor the pauses of guard.ts reach
 * inside it, and these are super-linear or long on a big list:
 * - `$sort`: a merge sort that copies the rest of the list at every comparison (quadratic time and
 *   memory: 30,000 numbers took 4.4 s and 820 MB, 5,000,000 ended the process out of memory);
 * - `$distinct`: compares every item with every kept item (quadratic: 30,000 numbers 0.6 s);
 * - `$spread`: concatenates the whole result again for every item (quadratic: 100,000 objects 92 s);
 * - `$string` and `$clone` (guarded-json.ts), `$reverse`, `$shuffle` and `$zip` (guarded-lists.ts): linear,
 *   but one step of up to seconds on millions of items; `$length`, `$substring` and `$pad`
 *   (guarded-texts.ts): a second per ten million characters; `$trim` and `$join` (guarded-texts.ts),
 *   `$split`, `$replace` and `$match` (guarded-patterns.ts): seconds on a text of tens of megabytes;
 *   `$keys` and `$merge` (guarded-objects.ts): seconds on a million keys; `$eval` (guarded-eval.ts)
 *   parses request data in one step.
 * Each gives the same results as the original (a differential test compares them), refuses a list longer
 * than the sequence limit, and works in slices: in the interpreter it lets the event loop turn every
 * YIELD_AFTER_MS and checks the time limit (JSONata's own D1012); on the synchronous fast path a call
 * that outlasts one slice gives up and the interpreter runs the expression instead.
 * They are registered on every compiled expression (compile.ts), so `$sort` is ours, and the fast path
 * fetches them the same way (fast-path/runtime.ts). JSONata's order-by syntax `list^(key)` calls its own
 * sort directly: order-by.ts rewrites the tree so that it calls this `$sort` instead.
 */

// ---------------------------------------------------------------------------------------------- $sort

/**
 * $sort(list, comparator?): JSONata's stable merge sort. With a comparator (a JSONata function, async)
 * the same comparisons are made in the same order, on indices instead of copies, so even a comparator
 * that is not a consistent order gives the original's answer. Without one (numbers or texts compared
 * with `>`, a total order) any stable sort gives the same answer: runs sorted natively, then merged in
 * slices.
 */
async function sort(this: Focus, list: unknown[] | undefined, comparator?: Comparator): Promise<unknown> {
  if (list === undefined) return undefined;
  if (list.length <= 1) return list;
  if (comparator === undefined) {
    // As JSONata: every item is looked at (an infinite number anywhere is D1001) before the verdict.
    let numbers = true;
    for (const item of list) if (!isNumeric(item)) numbers = false;
    if (!numbers && !list.every((item) => typeof item === 'string')) throw { stack: new Error().stack, code: 'D3070', index: 1 };
    refuseLongList(this, '$sort', list);
    return await sortNatural(this, list as (number | string)[]);
  }
  refuseLongList(this, '$sort', list);
  return await sortWith(this, list, comparator);
}

/** For the order-by syntax (order-by.ts), which sorts with a comparator of its own. */
export const GUARDED_SORT = sort;

const RUN = 2048;

function sortNatural(focus: Focus, list: readonly (number | string)[]): (number | string)[] | Promise<(number | string)[]> {
  const length = list.length;
  let source = list.slice();
  let target = new Array<number | string>(length);
  const natural = (a: number | string, b: number | string): number => (a > b ? 1 : b > a ? -1 : 0);
  let runStart = 0;
  let width = RUN;
  let mergeStart = 0;
  const work = (): boolean => {
    if (runStart < length) {
      const end = Math.min(length, runStart + RUN);
      const run = source.slice(runStart, end).sort(natural);
      for (let index = 0; index < run.length; index++) source[runStart + index] = run[index];
      runStart = end;
      return false;
    }
    if (width >= length) return true;
    // One slice of one bottom-up pass: merge [mergeStart, +width) with [+width, +2*width), left first on ties.
    let budget = RUN * 2;
    while (mergeStart < length && budget > 0) {
      const middle = Math.min(length, mergeStart + width);
      const end = Math.min(length, mergeStart + 2 * width);
      let left = mergeStart;
      let right = middle;
      let out = mergeStart;
      while (left < middle && right < end) target[out++] = source[left] > source[right] ? source[right++] : source[left++];
      while (left < middle) target[out++] = source[left++];
      while (right < end) target[out++] = source[right++];
      budget -= end - mergeStart;
      mergeStart = end;
    }
    if (mergeStart >= length) {
      [source, target] = [target, source];
      width *= 2;
      mergeStart = 0;
    }
    return false;
  };
  return drive(focus, work, () => source);
}

async function sortWith(focus: Focus, list: readonly unknown[], comparator: Comparator): Promise<unknown[]> {
  const guardrails = guardrailsOf(focus);
  const work = list.slice();
  const buffer = new Array<unknown>(work.length);
  let comparisons = 0;
  let since = Date.now();
  // msort(array): split at floor(length / 2), sort the left half, then the right, then merge.
  const msort = async (start: number, end: number): Promise<void> => {
    if (end - start <= 1) return;
    const middle = start + Math.floor((end - start) / 2);
    await msort(start, middle);
    await msort(middle, end);
    let left = start;
    let right = middle;
    let out = start;
    while (left < middle && right < end) {
      let swap = comparator(work[left], work[right]);
      if (isThenable(swap)) swap = await swap;
      buffer[out++] = swap ? work[right++] : work[left++];
      if (++comparisons % CHECK_EVERY === 0) {
        guardrails?.();
        if (Date.now() - since >= YIELD_AFTER_MS) {
          await pauseEvaluation();
          since = Date.now();
        }
      }
    }
    while (left < middle) buffer[out++] = work[left++];
    while (right < end) buffer[out++] = work[right++];
    for (let index = start; index < end; index++) work[index] = buffer[index];
  };
  await msort(0, work.length);
  return work;
}

// ---------------------------------------------------------------------------------------------- $distinct

/**
 * A text that two deep-equal values (isDeepEqual) always share, so that only values with the same key
 * need comparing: primitives by type and value, arrays and objects by their structure. An array equals
 * an object with the same own property names (length included), so anything with a `length` is keyed
 * as an array-like. Cycles (JSONata functions' environments) get one common key.
 */
const INDEX = /^(0|[1-9]\d*)$/;

function shapeKey(value: unknown, ancestors: unknown[] = []): string {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : `n${value === 0 ? 0 : value}`;
    return `${typeof value}:${String(value)}`;
  }
  if (typeof value === 'function') return 'function';
  if (ancestors.includes(value)) return 'cycle';
  ancestors.push(value);
  try {
    const record = value as Record<string, unknown>;
    if (Array.isArray(value) || Object.prototype.hasOwnProperty.call(value, 'length')) {
      // Index properties below the length, those holding something: all an array is compared by.
      const length = record.length;
      const items: string[] = [];
      const add = (index: string): void => {
        const item = record[index];
        if (item !== undefined) items.push(`${index}=${shapeKey(item, ancestors)}`);
      };
      if (Array.isArray(value)) for (let index = 0; index < value.length; index++) add(String(index));
      else {
        const indices = Object.getOwnPropertyNames(value).filter((name) => INDEX.test(name) && (typeof length !== 'number' || Number(name) < length));
        for (const name of indices.sort((a, b) => Number(a) - Number(b))) add(name);
      }
      return `[${shapeKey(length, ancestors)}:${items.join(',')}]`;
    }
    const keys = Object.getOwnPropertyNames(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${shapeKey(record[key], ancestors)}`).join(',')}}`;
  } finally {
    ancestors.pop();
  }
}

/** $distinct(list): the first of each group of deep-equal items, in order; linear for primitives (a Set). */
function distinct(this: Focus, list: unknown): unknown {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length <= 1) return list;
  refuseLongList(this, '$distinct', list);
  const results = isSequence(list) && this?.createSequence ? this.createSequence() : [];
  const primitives = new Set<unknown>();
  const shapes = new Map<string, unknown[]>();
  let index = 0;
  const work = (): boolean => {
    const end = Math.min(list.length, index + CHECK_EVERY);
    for (; index < end; index++) {
      const value: unknown = list[index];
      if (value !== null && typeof value === 'object') {
        const key = shapeKey(value);
        const same = shapes.get(key);
        if (!same) shapes.set(key, [value]);
        else if (same.some((kept) => isDeepEqual(value, kept))) continue;
        else same.push(value);
      } else if (typeof value === 'number' && Number.isNaN(value)) {
        // NaN !== NaN: JSONata keeps every one.
      } else if (primitives.has(value)) {
        continue;
      } else {
        primitives.add(value);
      }
      results.push(value);
    }
    return index >= list.length;
  };
  return drive(this, work, () => results);
}

// ---------------------------------------------------------------------------------------------- $spread

/**
 * $spread(value): objects split into one-property objects. JSONata starts from an empty sequence and
 * concatenates each part to a new array (the first part makes it a plain array); here the parts are
 * appended in place, with the same results and the same D2015 check.
 */
function spread(this: Focus, value: unknown): unknown {
  if (isSpreadObject(value)) return spreadObject(this, value);
  if (!Array.isArray(value)) return value;
  refuseLongList(this, '$spread', value);
  const parts = new Spread(this);
  let index = 0;
  const work = (): boolean => {
    const end = Math.min(value.length, index + CHECK_EVERY);
    for (; index < end; index++) parts.add(spreadValue(this, value[index]));
    return index >= value.length;
  };
  return drive(this, work, () => parts.result());
}

class Spread {
  private readonly empty: unknown[];
  private plain: unknown[] | undefined;
  constructor(private readonly focus: Focus) {
    this.empty = focus.createSequence ? focus.createSequence() : [];
  }
  add(part: unknown): void {
    if (part === undefined) return;
    const items = Array.isArray(part) ? part : [part];
    const size = (this.plain ?? this.empty).length + items.length;
    if (this.focus.options && size > (this.focus.options.sequence as number)) throw { code: 'D2015', stack: new Error().stack, value: size };
    this.plain ??= [];
    for (const item of items) this.plain.push(item);
  }
  result(): unknown[] {
    return this.plain ?? this.empty;
  }
}

function isSpreadObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && (value as { _jsonata_lambda?: unknown })._jsonata_lambda !== true;
}

function single(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const one = Object.create(null) as Record<string, unknown>;
  one[key] = value[key];
  return one;
}

/** One object (of up to a million keys, the sequence limit) into one-property objects, a slice at a time. */
function spreadObject(focus: Focus, value: Record<string, unknown>): unknown {
  const result = focus.createSequence ? focus.createSequence() : [];
  const keys = Object.keys(value);
  let index = 0;
  const work = (): boolean => {
    const end = Math.min(keys.length, index + CHECK_EVERY);
    for (; index < end; index++) result.push(single(value, keys[index]));
    return index >= keys.length;
  };
  return drive(focus, work, () => result);
}

/** An item of a list: nested lists and objects in it are spread at once (an item is small next to a list). */
function spreadValue(focus: Focus, value: unknown): unknown {
  if (Array.isArray(value)) {
    const parts = new Spread(focus);
    for (const item of value) parts.add(spreadValue(focus, item));
    return parts.result();
  }
  if (isSpreadObject(value)) {
    const result = focus.createSequence ? focus.createSequence() : [];
    for (const key of Object.keys(value)) result.push(single(value, key));
    return result;
  }
  return value;
}

export interface GuardedBuiltin {
  readonly name: string;
  readonly signature: string;
  readonly implementation: (...args: never[]) => unknown;
}

/** Registered over JSONata's own, with the same signatures (jsonata.js, staticFrame.bind). */
export const GUARDED_BUILTINS: readonly GuardedBuiltin[] = [
  { name: 'sort', signature: '<af?:a>', implementation: sort as GuardedBuiltin['implementation'] },
  { name: 'distinct', signature: '<x:x>', implementation: distinct as GuardedBuiltin['implementation'] },
  { name: 'spread', signature: '<x-:a<o>>', implementation: spread as GuardedBuiltin['implementation'] },
  ...JSON_BUILTINS,
  ...LIST_BUILTINS,
  ...TEXT_BUILTINS,
  ...OBJECT_BUILTINS,
  ...PATTERN_BUILTINS,
  ...EVAL_BUILTINS,
];
