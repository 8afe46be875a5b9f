import { checkClock, isSequence, type Frame, type Run } from './runtime';
import type { AstNode } from './subset';

/** paths.ts's evaluator types, repeated: paths.ts uses this module. */
type Evaluator = (input: unknown, frame: Frame, run: Run) => unknown;
type Compile = (node: AstNode) => Evaluator;

/**
 * Joins: a filter `list[key = outer]` where `key` reads only the item (`order_id[0]`, `id`, `a.b`) and
 * `outer` reads nothing of it (`$o.id`, `$l.product_id[0]`, a literal). The interpreter evaluates both
 * sides for every item, so a lookup per order in a list of lines is orders × lines evaluations. Here the
 * items' keys are evaluated once per evaluation and list, into an index from key to the items' positions
 * (in order), and each lookup reads the index: the same items, in the same order.
 *
 * Exactness: JSONata's `=` is isDeepEqual, which for a text, a number, a boolean or null is `===`. The
 * index holds those keys only (NaN never equals anything, so it is left out); an item whose key is an
 * object or a list can only equal an outer value that is one too, and such an outer value runs the
 * ordinary scan. An undefined key or outer value never matches (`=` is false). Errors cannot differ: every
 * key is evaluated, as the scan would, and the outer value is evaluated only for a list that has items.
 */
export interface Join {
  /** The item's side, evaluated with the item as context. */
  readonly key: Evaluator;
  /** The side that reads nothing of the item. */
  readonly outer: Evaluator;
}

interface Index {
  readonly list: readonly unknown[];
  readonly positions: Map<unknown, number[]>;
}

function isPrimitiveKey(value: unknown): boolean {
  const type = typeof value;
  return value === null || type === 'string' || type === 'boolean' || (type === 'number' && !Number.isNaN(value));
}

/** Only names (and number indexes `[0]`) from the context: `order_id[0]`, `id`, `a.b`. */
function readsOnlyTheItem(node: AstNode): boolean {
  if (node.type === 'name') return onlyIndexStages(node);
  if (node.type !== 'path' || node.tuple !== undefined || node.keepSingletonArray !== undefined || node.group !== undefined) return false;
  return (node.steps as AstNode[]).every((step) => step.type === 'name' && onlyIndexStages(step) && step.focus === undefined && step.index === undefined && step.tuple === undefined);
}

function onlyIndexStages(node: AstNode): boolean {
  if (node.group !== undefined || node.keepArray !== undefined) return false;
  const filters = [...((node.stages as AstNode[] | undefined) ?? []), ...((node.predicate as AstNode[] | undefined) ?? [])];
  return filters.every((stage) => stage.type === 'filter' && (stage.expr as AstNode).type === 'number');
}

/** A literal, or a path from a variable other than the context (`$o.id`, `$$.code`, `$products`). */
function readsNothingOfTheItem(node: AstNode): boolean {
  if (node.type === 'string' || node.type === 'number' || node.type === 'value') return node.predicate === undefined;
  if (node.type === 'variable') return node.value !== '' && onlyIndexStages(node);
  if (node.type !== 'path' || node.tuple !== undefined || node.keepSingletonArray !== undefined || node.group !== undefined) return false;
  const [first, ...rest] = node.steps as AstNode[];
  return first.type === 'variable' && first.value !== '' && onlyIndexStages(first) && rest.every((step) => step.type === 'name' && onlyIndexStages(step) && step.focus === undefined && step.index === undefined);
}

/** The join a filter's expression makes, if it is one. */
export function joinOf(predicate: AstNode, compile: Compile): Join | undefined {
  if (predicate.type !== 'binary' || predicate.value !== '=' || predicate.predicate !== undefined || predicate.group !== undefined) return undefined;
  const lhs = predicate.lhs as AstNode;
  const rhs = predicate.rhs as AstNode;
  if (readsOnlyTheItem(lhs) && readsNothingOfTheItem(rhs)) return { key: compile(lhs), outer: compile(rhs) };
  if (readsOnlyTheItem(rhs) && readsNothingOfTheItem(lhs)) return { key: compile(rhs), outer: compile(lhs) };
  return undefined;
}

/** Lists shorter than this are scanned: building an index costs more than it saves. */
const INDEXED_FROM = 8;

/**
 * The filter's answer through the index, or undefined when the scan must run (a short list, an outer
 * value that is an object or a list). `results` is the filter's empty sequence, filled here.
 */
export function joinedItems(join: Join, items: readonly unknown[], frame: Frame, run: Run, results: unknown[]): unknown[] | undefined {
  if (items.length < INDEXED_FROM) return undefined;
  const outer = join.outer(undefined, frame, run);
  if (outer === undefined) return results;
  if (!isPrimitiveKey(outer)) return typeof outer === 'number' ? results : undefined;
  const index = indexOf(join, items, frame, run);
  for (const position of index.positions.get(outer) ?? []) results.push(items[position]);
  return results;
}

function indexOf(join: Join, items: readonly unknown[], frame: Frame, run: Run): Index {
  const known = run.joins?.get(join) as Index | undefined;
  if (known && known.list === items) return known;
  const positions = new Map<unknown, number[]>();
  for (let position = 0; position < items.length; position++) {
    if ((++run.ticks & 1023) === 0) checkClock(run);
    const key = join.key(items[position], frame, run);
    if (!isPrimitiveKey(key)) continue;
    const same = positions.get(key);
    if (same) same.push(position);
    else positions.set(key, [position]);
  }
  const index = { list: items, positions };
  // A sequence is made anew by each evaluation of its path: only a list kept as it is (a variable's, a field's) is worth keeping.
  if (!isSequence(items)) (run.joins ??= new Map()).set(join, index);
  return index;
}
