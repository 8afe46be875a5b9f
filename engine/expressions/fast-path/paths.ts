import { compareSortKeys } from '../order-by';
import { mergeSort } from './higher-order';
import { joinOf, joinedItems, type Join } from './joins';
import { FALLBACK, Frame, append, checkClock, createSequence, emptyObject, isSequence, toBoolean, type Run, type Sequence } from './runtime';
import type { AstNode } from './subset';

/**
 * The parts of JSONata's evaluator that paths with predicates, tuple streams (`@`, `#`), order-by and
 * grouping need, mirroring jsonata 2.2.2's evaluatePath, evaluateStep, evaluateStages, evaluateTupleStep,
 * evaluateFilter, evaluateSortExpression and evaluateGroupExpression, synchronously. Every JSONata
 * error is FALLBACK: the interpreter's rerun reports it.
 */
export type Evaluator = (input: unknown, frame: Frame, run: Run) => unknown;
export type Compile = (node: AstNode) => Evaluator;

type Tuple = Record<string, unknown>;

function tick(run: Run): void {
  if ((++run.ticks & 1023) === 0) checkClock(run);
}

/** The end of the interpreter's evaluate(): a sequence of none is nothing, of one its item (unless kept). */
export function finishNode(result: unknown, keepArray: boolean): unknown {
  if (result && isSequence(result) && !result.tupleStream) {
    if (keepArray) result.keepSingleton = true;
    if (result.length === 0) return undefined;
    if (result.length === 1) return result.keepSingleton ? result : result[0];
  }
  return result;
}

export function frameFromTuple(frame: Frame, tuple: Tuple): Frame {
  const inner = new Frame(frame);
  for (const key of Object.keys(tuple)) inner.vars[key] = tuple[key];
  return inner;
}

function isNumeric(value: unknown): boolean {
  if (typeof value !== 'number' || Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) throw FALLBACK;
  return true;
}

/** A filter `[...]`: its tree (a number literal is an index) and its evaluator. */
export interface Predicate {
  readonly index?: number;
  readonly evaluate: Evaluator;
  /** `[key = outer]`: answered through an index (joins.ts). */
  readonly join?: Join;
}

export function predicateOf(node: AstNode, compile: Compile): Predicate {
  return node.type === 'number' ? { index: node.value as number, evaluate: compile(node) } : { evaluate: compile(node), join: joinOf(node, compile) };
}

/** evaluateFilter. */
export function evaluateFilter(predicate: Predicate, input: unknown, frame: Frame, run: Run): unknown {
  const results: unknown[] = createSequence(run);
  const tupleStream = Boolean(input && (input as Sequence).tupleStream);
  if (tupleStream) (results as Sequence).tupleStream = true;
  if (predicate.index !== undefined) return filterByIndex(run, input, predicate.index, results);
  const items: unknown[] = Array.isArray(input) ? input : createSequence(run, input);
  if (predicate.join && !tupleStream) {
    const joined = joinedItems(predicate.join, items, frame, run, results);
    if (joined) return joined;
  }
  for (let index = 0; index < items.length; index++) {
    tick(run);
    const item = items[index];
    const context = tupleStream ? (item as Tuple)['@'] : item;
    const env = tupleStream ? frameFromTuple(frame, item as Tuple) : frame;
    for (let kept = timesKept(predicate.evaluate(context, env, run), index, items.length); kept > 0; kept--) results.push(item);
  }
  return results;
}

/** A filter `[n]` with a number literal: the item at that place (from the end when negative), added to `results`. */
function filterByIndex(run: Run, input: unknown, at: number, results: unknown[]): unknown {
  const items: unknown[] = Array.isArray(input) ? input : createSequence(run, input);
  let index = Math.floor(at);
  if (index < 0) index = items.length + index;
  const item = items[index];
  if (item === undefined) return results;
  if (Array.isArray(item)) return item;
  results.push(item);
  return results;
}

/**
 * The generated code's filter `[n]` with a number literal (codegen/filters.ts): the item found, itself.
 * filterByIndex gives a list item as it is, but puts any other in a sequence of one, which each reader
 * unwraps again: the next filter and a path's step read an item as the sequence of it, finish() gives
 * the item (and a path's last step copied the sequence first, lastStepArray). Nothing found (or an input
 * that is nothing) as filterByIndex: an empty sequence.
 */
export function itemByIndex(run: Run, input: unknown, at: number): unknown {
  const index = Math.floor(at);
  let item: unknown;
  // A value that is not a list is read as the sequence of it: its place is 0, or -1 from the end.
  if (Array.isArray(input)) item = input[index < 0 ? input.length + index : index];
  else if (index === 0 || index === -1) item = input;
  return item !== undefined ? item : filterByIndex(run, input, at, createSequence(run));
}

/**
 * How often evaluateFilter keeps the item at `index` of `length` items, given the predicate's value:
 * numbers are positions (an item is kept once for each that names it), anything else is a boolean.
 */
export function timesKept(value: unknown, index: number, length: number): number {
  const res = isNumeric(value) ? [value] : value;
  if (Array.isArray(res) && res.every((item) => isNumeric(item))) {
    let kept = 0;
    for (const item of res) {
      let position = Math.floor(item as number);
      if (position < 0) position = length + position;
      if (position === index) kept += 1;
    }
    return kept;
  }
  return toBoolean(res) ? 1 : 0;
}

/** A stage of a step: a filter, or `#$name` (the item's index in the tuple). */
export type Stage = { readonly filter: Predicate } | { readonly indexName: string };

export function stagesOf(stages: readonly AstNode[] | undefined, compile: Compile): readonly Stage[] {
  return (stages ?? []).map((stage) => (stage.type === 'filter' ? { filter: predicateOf(stage.expr as AstNode, compile) } : { indexName: stage.value as string }));
}

export function evaluateStages(stages: readonly Stage[], input: unknown, frame: Frame, run: Run): unknown {
  let result = input;
  for (const stage of stages) {
    if ('filter' in stage) result = evaluateFilter(stage.filter, result, frame, run);
    else for (let index = 0; index < (result as Tuple[]).length; index++) (result as Tuple[])[index][stage.indexName] = index;
  }
  return result;
}

/** An order-by `^(...)`: each term's key and direction. */
export interface SortTerms {
  readonly terms: readonly { readonly key: Evaluator; readonly descending: boolean }[];
}

/** evaluateSortExpression, with the same comparisons in the same order (higher-order.ts's mergeSort). */
export function evaluateSort(sort: SortTerms, input: unknown[], frame: Frame, run: Run): unknown[] {
  const tuples = Boolean((input as Sequence).tupleStream);
  const keyOf = (item: unknown, key: Evaluator): unknown => (tuples ? key((item as Tuple)['@'], frameFromTuple(frame, item as Tuple), run) : key(item, frame, run));
  const swap = (a: unknown, b: unknown): boolean => {
    let comp = 0;
    for (let index = 0; comp === 0 && index < sort.terms.length; index++) {
      const term = sort.terms[index];
      const compared = compareSortKeys(keyOf(a, term.key), keyOf(b, term.key), term.descending);
      if (typeof compared === 'string') throw FALLBACK; // T2007, T2008: the interpreter raises them
      comp = compared;
    }
    return comp === 1;
  };
  // The guarded $sort the interpreter's order-by runs (order-by.ts) refuses a list over the sequence limit.
  if (run.maxSequence && input.length > run.maxSequence) throw FALLBACK;
  if (input.length <= 1) return input;
  return mergeSort(run, input, swap);
}

/** An object constructor `{ key: value, ... }` over a list: its pairs. */
export type Pairs = readonly (readonly [Evaluator, Evaluator])[];

/**
 * Whether a grouping's key or value may bind a variable (`{ k: $x := v }`; a bind inside a block or a
 * function counted too). The interpreter evaluates each as a function of its own (group-by.ts), whose
 * bindings end with it: such a key or value runs in a frame of its own in the fast path too (groupPart;
 * codegen/group-by.ts writes the same). Then no binding outlives a value, and the order the values run
 * in is not seen.
 */
export function mayBind(node: unknown, seen = new Set<object>()): boolean {
  if (typeof node !== 'object' || node === null || node instanceof RegExp || seen.has(node)) return false;
  seen.add(node);
  if ((node as AstNode).type === 'bind') return true;
  return Object.values(node).some((child) => mayBind(child, seen));
}

/** A grouping's key or value, in a frame of its own when it may bind a variable (mayBind). */
export function groupPart(node: AstNode, compile: Compile): Evaluator {
  const evaluate = compile(node);
  return mayBind(node) ? (input, frame, run) => evaluate(input, new Frame(frame), run) : evaluate;
}

/** evaluateGroupExpression, and reduceTupleStream for a tuple stream's groups. */
export function evaluateGroup(pairs: Pairs, input: unknown, frame: Frame, run: Run): Record<string, unknown> {
  const result = emptyObject();
  const groups = Object.create(null) as Record<string, { data: unknown; readonly exprIndex: number }>;
  const reduce = Boolean(input && (input as Sequence).tupleStream);
  let items: unknown[];
  if (Array.isArray(input)) {
    // The interpreter pushes into an empty input array; when that array is the caller's data, leave it alone.
    if (input.length === 0 && !reduce && !isSequence(input)) throw FALLBACK;
    items = input;
  } else {
    items = createSequence(run, input);
  }
  if (items.length === 0 && !reduce) items.push(undefined);
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    tick(run);
    const item = items[itemIndex];
    const env = reduce ? frameFromTuple(frame, item as Tuple) : frame;
    for (let pairIndex = 0; pairIndex < pairs.length; pairIndex++) {
      const key = pairs[pairIndex][0](reduce ? (item as Tuple)['@'] : item, env, run);
      if (key === undefined) continue;
      if (typeof key !== 'string' || key === '_jsonata_lambda' || key === '_jsonata_function') throw FALLBACK; // T1003, D1013
      if (Object.prototype.hasOwnProperty.call(groups, key)) {
        if (groups[key].exprIndex !== pairIndex) throw FALLBACK; // D1009
        groups[key].data = append(run, groups[key].data, item);
      } else {
        groups[key] = { data: item, exprIndex: pairIndex };
      }
    }
  }
  for (const key of Object.keys(groups)) {
    const entry = groups[key];
    let context = entry.data;
    let env = frame;
    if (reduce) {
      const tuple = reduceTuples(run, entry.data);
      context = tuple['@'];
      delete tuple['@'];
      env = frameFromTuple(frame, tuple);
    }
    const value = pairs[entry.exprIndex][1](context, env, run);
    if (value !== undefined) result[key] = value;
  }
  return result;
}

function reduceTuples(run: Run, stream: unknown): Tuple {
  if (!Array.isArray(stream)) return stream as Tuple;
  const result = Object.create(null) as Tuple;
  Object.assign(result, stream[0]);
  for (let index = 1; index < stream.length; index++) {
    const tuple = stream[index] as Tuple;
    for (const key of Object.keys(tuple)) result[key] = append(run, result[key], tuple[key]);
  }
  return result;
}
