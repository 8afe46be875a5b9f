import { CALL_DEPTH, FALLBACK, Frame, checkClock, isSequence, toBoolean, type Run } from './runtime';
import { treeDepth, type AstNode } from './subset';

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
 *
 * `list[key = outer and rest]` is a join too: JSONata's `and` evaluates `rest` only where the equality
 * holds, so the index finds the items and `rest` is asked of those, in order (the other way round,
 * `rest and key = outer`, is not: the scan asks `rest` of every item, and its errors must not be missed).
 */
export interface Join {
  /** The item's side, evaluated with the item as context. */
  readonly key: Evaluator;
  /** The side that reads nothing of the item. */
  readonly outer: Evaluator;
  /** `and rest`: asked of each item the index finds, with the item as context. */
  readonly rest?: Evaluator;
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

/** The sides of a join: the item's key, the outer value, and the conditions after `and`, in order. */
export interface JoinParts {
  readonly key: AstNode;
  readonly outer: AstNode;
  readonly rest: readonly AstNode[];
}

/** The parts of the join a filter's expression makes, if it is one (the generated code writes them: codegen/filters.ts). */
export function joinParts(predicate: AstNode): JoinParts | undefined {
  if (predicate.type !== 'binary' || predicate.predicate !== undefined || predicate.group !== undefined) return undefined;
  const lhs = predicate.lhs as AstNode;
  const rhs = predicate.rhs as AstNode;
  if (predicate.value === 'and') {
    const first = joinParts(lhs);
    return first && { key: first.key, outer: first.outer, rest: [...first.rest, rhs] };
  }
  if (predicate.value !== '=') return undefined;
  if (readsOnlyTheItem(lhs) && readsNothingOfTheItem(rhs)) return { key: lhs, outer: rhs, rest: [] };
  if (readsOnlyTheItem(rhs) && readsNothingOfTheItem(lhs)) return { key: rhs, outer: lhs, rest: [] };
  return undefined;
}

/** The join a filter's expression makes, if it is one. */
export function joinOf(predicate: AstNode, compile: Compile): Join | undefined {
  const parts = joinParts(predicate);
  if (!parts) return undefined;
  const rest = parts.rest.map(compile);
  return { key: compile(parts.key), outer: compile(parts.outer), rest: rest.length === 0 ? undefined : rest.reduce(andThen) };
}

/** `(a and b) and c` where the index answers `a`: `b`, then `c` only where `b` holds, as `and` does. */
function andThen(first: Evaluator, second: Evaluator): Evaluator {
  return (input, frame, run) => toBoolean(first(input, frame, run)) === true && toBoolean(second(input, frame, run)) === true;
}

/** A `$filter` call that is a join: its function, a lambda of one parameter, compares `$v.key` with an outer value. */
export interface FilterJoinShape {
  readonly param: string;
  /** The `$v.key` side. */
  readonly key: AstNode;
  /** The side that reads nothing of `$v`. */
  readonly outer: AstNode;
  /** What a call of the function adds to the depth bound (as a FastLambda's depthCost). */
  readonly depthCost: number;
}

/** `$v.order_id[0]`: a path from the parameter through names (number indexes allowed). */
function readsOnlyTheParameter(node: AstNode, param: string): boolean {
  if (node.type !== 'path' || node.tuple !== undefined || node.keepSingletonArray !== undefined || node.group !== undefined) return false;
  const [first, ...rest] = node.steps as AstNode[];
  if (first.type !== 'variable' || first.value !== param || first.stages !== undefined || first.predicate !== undefined || first.group !== undefined || first.focus !== undefined || first.index !== undefined || first.tuple !== undefined) return false;
  return rest.length > 0 && rest.every((step) => step.type === 'name' && onlyIndexStages(step) && step.focus === undefined && step.index === undefined && step.tuple === undefined);
}

function namesVariable(node: AstNode, name: string): boolean {
  if (node.type === 'variable') return node.value === name;
  return node.type === 'path' && (node.steps as AstNode[])[0].type === 'variable' && (node.steps as AstNode[])[0].value === name;
}

/**
 * `$filter(list, function($v) { $v.key = outer })` with `outer` reading nothing of `$v`: the same items
 * as `list[key = outer]`, in the same order. JSONata's $filter calls the function once per item, which
 * evaluates both sides of `=`; neither side can fail (paths of names, a literal, a variable's path), so
 * answering through the index gives the same items without a call per item. `lambdaNames`: the names the
 * expression binds to functions (a `$filter` of its own is not the built-in).
 */
export function filterJoinShape(call: AstNode, lambdaNames: ReadonlySet<string>): FilterJoinShape | undefined {
  const procedure = call.procedure as AstNode | undefined;
  if (call.type !== 'function' || procedure?.type !== 'variable' || procedure.value !== 'filter' || lambdaNames.has('filter')) return undefined;
  if (call.predicate !== undefined || call.group !== undefined || call.keepArray !== undefined) return undefined;
  const [, lambda, ...more] = call.arguments as AstNode[];
  if (lambda === undefined || more.length > 0 || lambda.type !== 'lambda' || lambda.thunk === true || lambda.signature !== undefined) return undefined;
  if (lambda.predicate !== undefined || lambda.group !== undefined || lambda.keepArray !== undefined) return undefined;
  const params = lambda.arguments as AstNode[];
  const body = lambda.body as AstNode;
  if (params.length !== 1 || body.type !== 'binary' || body.value !== '=' || body.predicate !== undefined || body.group !== undefined) return undefined;
  const param = params[0].value as string;
  const depthCost = treeDepth(body) + CALL_DEPTH;
  const sides: [AstNode, AstNode][] = [[body.lhs as AstNode, body.rhs as AstNode], [body.rhs as AstNode, body.lhs as AstNode]];
  for (const [key, outer] of sides) {
    if (readsOnlyTheParameter(key, param) && readsNothingOfTheItem(outer) && !namesVariable(outer, param)) return { param, key, outer, depthCost };
  }
  return undefined;
}

/** The join of a `$filter` call of that shape: the key read with the parameter bound to the item, as the function's call would. */
export function filterJoinOf(shape: FilterJoinShape, compile: Compile): Join {
  const key = compile(shape.key);
  const { param } = shape;
  return {
    key: (item, frame, run) => {
      const inner = new Frame(frame);
      inner.vars[param] = item;
      return key(item, inner, run);
    },
    outer: compile(shape.outer),
  };
}

/**
 * The `$filter` call's answer through the index (before `finish`), or undefined when the built-in must
 * run: a value that is no list, a short list, an outer value that is an object or a list. A call of the
 * function past the depth bound hands the evaluation to the interpreter, as the call would.
 */
export function filterJoined(join: Join, shape: FilterJoinShape, list: unknown, frame: Frame, run: Run, results: unknown[]): unknown[] | undefined {
  if (!Array.isArray(list) || list.length < INDEXED_FROM) return undefined;
  if (run.depth + shape.depthCost > run.maxDepth) throw FALLBACK;
  return joinedItems(join, list, frame, run, results);
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
  const { rest } = join;
  for (const position of index.positions.get(outer) ?? []) {
    if (rest === undefined) results.push(items[position]);
    else {
      if ((++run.ticks & 1023) === 0) checkClock(run);
      if (toBoolean(rest(items[position], frame, run)) === true) results.push(items[position]);
    }
  }
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
