import { joinParts, type FilterJoinShape } from '../joins';
import type { AstNode } from '../subset';
import { groupFunction } from './group-by';
import { numberLiteral, textLiteral } from './literals';
import { TICK, type Unit, type Writer } from './unit';

/**
 * Filters and order-by written as code: `$lines[order_id[0] = $o.id][state != 'cancel']` (a variable
 * with filters, the usual shape of a lookup in a separately fetched list, in shared functions too) and a
 * path `first^(key).rest` whose order-by follows its first step. Each is the generated form of what
 * paths.ts and general-path.ts do for it (evaluateFilter, evaluateSort, evaluateStep), with their
 * helpers; anything else with filters, tuples (`@`, `#`) or grouping stays a closure (language.ts).
 */

/** A variable with filters and/or a grouping `{...}` after it: no `[]`, every filter a `[...]`. */
export function isWrittenFilter(node: AstNode): boolean {
  if (node.type !== 'variable' || node.keepArray !== undefined || node.stages !== undefined) return false;
  const filters = (node.predicate as AstNode[] | undefined) ?? [];
  return (filters.length > 0 || node.group !== undefined) && filters.every((filter) => filter.type === 'filter');
}

/**
 * compileGeneral of such a node: the variable's raw value (not finished: a filter over a sequence of
 * one list filters the list's items, as evaluate() does), each filter over the last one's items, the
 * grouping (group-by.ts), then finish. A tuple stream cannot be
 * a variable's value; were one met, the interpreter would answer.
 */
export function filterFunction(node: AstNode, unit: Unit, writer: Writer): string {
  return unit.memo(node, (name) => {
    const variable = node.value as string;
    const raw = variable === '' ? '(input && input.outerWrapper ? input[0] : input)' : `readVariable(run, frame, ${textLiteral(variable)})`;
    const filters = ((node.predicate as AstNode[] | undefined) ?? []).map((filter) => predicateFunction(filter.expr as AstNode, unit, writer));
    const group = node.group as AstNode | undefined;
    const grouping = group === undefined ? undefined : groupFunction(group.lhs as AstNode[][], unit, writer);
    return [
      `function ${name}(input, frame, run) {`,
      `let v = ${raw};`,
      'if (v !== null && v !== undefined && v.tupleStream) throw FALLBACK;',
      ...filters.map((filter) => `v = ${filter}(v, frame, run);`),
      grouping === undefined ? '' : `v = ${grouping}(v, frame, run);`,
      'return finish(v, false);',
      '}',
    ].filter(Boolean).join('\n');
  });
}

/**
 * One filter over a value (evaluateFilter without tuple streams): a number literal is a place; an
 * equality with a side that reads nothing of the item is answered through the join index (joins.ts,
 * built once per list and evaluation); otherwise the predicate, written as code with the item as its
 * input, is asked of each item, the clock checked as every loop checks it.
 */
function predicateFunction(predicate: AstNode, unit: Unit, writer: Writer): string {
  const name = unit.name('g');
  // As evaluateFilter: a number literal is a place, whatever follows it.
  if (predicate.type === 'number') {
    const at = numberLiteral(predicate.value as number) ?? unit.constant(predicate.value);
    unit.lines.push(`function ${name}(v, frame, run) { return itemByIndex(run, v, ${at}); }`);
    return name;
  }
  const join = joinFunctions(predicate, unit, writer);
  const test = writer.expression(predicate, unit, 'item');
  unit.lines.push([
    `function ${name}(v, frame, run) {`,
    'const items = Array.isArray(v) ? v : createSequence(run, v);',
    'const r = createSequence(run);',
    join === undefined ? '' : `const joined = joinedItems(${join}, items, frame, run, r); if (joined !== undefined) return joined;`,
    'for (let i = 0; i < items.length; i++) {',
    TICK,
    'const item = items[i];',
    `const p = ${test};`,
    // true and false (the usual comparisons) decided here; numbers, lists and other values as evaluateFilter.
    'if (p === true) r.push(item);',
    'else if (p !== false && p !== undefined) for (let n = timesKept(p, i, items.length); n > 0; n--) r.push(item);',
    '}',
    'return r;',
    '}',
  ].filter(Boolean).join('\n'));
  return name;
}

/**
 * The join of a filter (joins.ts's Join: the key, the outer value, the conditions after `and`), its
 * parts written as code; the name of the object, which also keys the evaluation's index (Run.joins).
 */
function joinFunctions(predicate: AstNode, unit: Unit, { functionFor }: Writer): string | undefined {
  const parts = joinParts(predicate);
  if (parts === undefined) return undefined;
  const join = unit.name('J');
  let rest = parts.rest.length === 0 ? 'undefined' : functionFor(parts.rest[0], unit);
  if (parts.rest.length > 1) {
    // As joins.ts's andThen: each condition in order, the next asked only where the last holds.
    rest = unit.name('f');
    const tests = parts.rest.map((node) => `toBoolean(${functionFor(node, unit)}(input, frame, run)) === true`);
    unit.lines.push(`function ${rest}(input, frame, run) { return ${tests.join(' && ')}; }`);
  }
  unit.lines.push(`const ${join} = { key: ${functionFor(parts.key, unit)}, outer: ${functionFor(parts.outer, unit)}, rest: ${rest} };`);
  return join;
}

/**
 * A path of plain steps some of which carry filters (`order.lines[state = "sale"].qty`, `$x[a].b`): the
 * path is written as a plain one (structures.ts's pathFunction), each such step as stagedStepFunction.
 */
export function isWrittenStagedPath(node: AstNode): boolean {
  if (node.type !== 'path' || node.predicate !== undefined || node.group !== undefined || node.keepArray !== undefined) return false;
  if (node.tuple !== undefined || node.keepSingletonArray !== undefined || node.seekingParent !== undefined) return false;
  const steps = node.steps as AstNode[];
  const staged = (step: AstNode): boolean => step.stages === undefined || (step.consarray !== true && (step.stages as AstNode[]).every((stage) => stage.type === 'filter'));
  const bare = (step: AstNode): boolean => plainStep({ ...step, stages: undefined });
  return steps.every((step) => staged(step) && bare(step)) && steps.some((step) => step.stages !== undefined || step.predicate !== undefined);
}

/**
 * A step with filters (general-path.ts's evaluateStep): the step's own value, then each filter over it.
 * Not finished: the path flattens the filtered sequence's items as the interpreter does.
 */
export function stagedStepFunction(step: AstNode, unit: Unit, writer: Writer): string {
  return unit.memo(step, (name) => {
    const own = writer.functionFor({ ...step, stages: undefined }, unit);
    const filters = (step.stages as AstNode[]).map((stage) => predicateFunction(stage.expr as AstNode, unit, writer));
    return [`function ${name}(input, frame, run) {`, `let v = ${own}(input, frame, run);`, ...filters.map((filter) => `v = ${filter}(v, frame, run);`), 'return v;', '}'].join('\n');
  });
}

function plainStep(step: AstNode): boolean {
  return step.type !== 'sort' && step.stages === undefined && step.tuple === undefined && step.focus === undefined && step.index === undefined
    && step.ancestor === undefined && step.group === undefined && step.keepArray === undefined && step.consarray !== true;
}

/**
 * `steps^(keys).rest...`, grouped or not (`$open^(line){ ... }`, `calls.orders.items^(>priority)`): a
 * path of plain steps with one order-by, after the first step, without filters or bindings of its own.
 */
export function isWrittenSortPath(node: AstNode): boolean {
  if (node.type !== 'path' || node.predicate !== undefined || node.keepArray !== undefined) return false;
  if (node.tuple !== undefined || node.keepSingletonArray !== undefined || node.seekingParent !== undefined) return false;
  const steps = node.steps as AstNode[];
  const at = steps.findIndex((step) => step.type === 'sort');
  if (at < 1) return false;
  const sort = steps[at];
  if (sort.stages !== undefined || sort.tuple !== undefined || sort.focus !== undefined || sort.index !== undefined) return false;
  return steps.every((step, index) => index === at || plainStep(step));
}

/**
 * compileGeneralPath of such a path: the steps before the order-by over the input's sequence, the
 * order-by over their items (evaluateSort: the same comparisons in the same order, each key written as
 * code), the steps after it as a plain path's (pathRest), then the grouping (group-by.ts, which reads
 * nothing and an empty sequence alike). Nothing before the order-by is nothing, or the grouping of it.
 */
export function sortPathFunction(node: AstNode, unit: Unit, writer: Writer): string {
  const { functionFor } = writer;
  return unit.memo(node, (name) => {
    const steps = node.steps as AstNode[];
    const at = steps.findIndex((step) => step.type === 'sort');
    const terms = (steps[at].terms as AstNode[]).map((term) => `{ key: ${functionFor(term.expression as AstNode, unit)}, descending: ${term.descending === true ? 'true' : 'false'} }`);
    const stepFunctions = unit.name('S');
    const sortTerms = unit.name('O');
    // The order-by's place in the steps is never called: pathRest starts after it.
    const functions = steps.map((step, index) => (index === at ? 'undefined' : functionFor(step, unit)));
    const group = node.group as AstNode | undefined;
    const grouping = group === undefined ? undefined : groupFunction(group.lhs as AstNode[][], unit, writer);
    const grouped = (value: string): string => (grouping === undefined ? value : `${grouping}(${value}, frame, run)`);
    const before = steps.slice(0, at).map((_, index) => [
      `items = evaluateStep(${stepFunctions}[${index}], items, frame, run, false);`,
      `if (items.length === 0) return ${grouping === undefined ? 'undefined' : grouped('items')};`,
    ].join('\n'));
    const rest = at < steps.length - 1 ? `pathRest(run, frame, ${stepFunctions}, sorted, ${at + 1})` : 'finish(sorted, false)';
    return [
      `const ${stepFunctions} = [${functions.join(', ')}];`,
      `const ${sortTerms} = { terms: [${terms.join(', ')}] };`,
      `function ${name}(input, frame, run) {`,
      `let items = ${steps[0].type === 'variable' ? 'createSequence(run, input)' : 'Array.isArray(input) ? input : createSequence(run, input)'};`,
      ...before,
      `const sorted = evaluateSort(${sortTerms}, items, frame, run);`,
      `return ${grouped(rest)};`,
      '}',
    ].join('\n');
  });
}

/**
 * `$filter(list, function($v) { $v.key = outer })` (joins.ts's filterJoinShape), as compile-node.ts's
 * compileCall answers it: the list first; through the index when filterJoined can answer (the function
 * value is then never made); otherwise the built-in with the function, as any call. `argument` writes
 * an argument as a call's, over the name `input`.
 */
export function filterJoinCall(call: AstNode, shape: FilterJoinShape, unit: Unit, input: string, argument: (arg: AstNode) => string, functionFor: Writer['functionFor']): string {
  // filterJoinOf's join, written as code: the key read with the parameter bound to the item.
  const join = unit.name('J');
  const key = unit.name('f');
  unit.lines.push(
    `function ${key}(input, frame, run) { const inner = new Frame(frame); inner.vars[${textLiteral(shape.param)}] = input; return ${functionFor(shape.key, unit)}(input, inner, run); }`,
    `const ${join} = { key: ${key}, outer: ${functionFor(shape.outer, unit)} };`,
  );
  const [list, lambda] = call.arguments as AstNode[];
  const name = unit.name('j');
  const builtin = unit.name('b');
  const site = unit.name('s');
  unit.lines.push([
    `let ${builtin}; const ${site} = new CallSiteSignature();`,
    `function ${name}(input, frame, run) {`,
    `const list = ${argument(list)};`,
    `const joined = filterJoined(${join}, ${unit.constant(shape)}, list, frame, run, createSequence(run));`,
    'if (joined !== undefined) return finish(joined, false);',
    `return finish(applyBuiltin(run, ${builtin} === undefined ? (${builtin} = resolveBuiltin(${textLiteral('filter')})) : ${builtin}, [list, ${argument(lambda)}], input, ${site}), false);`,
    '}',
  ].join('\n'));
  return `${name}(${input}, frame, run)`;
}
