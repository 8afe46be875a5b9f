import { objectPairs, type OutputNode } from './parse-tree';
import { itemsOf, objectFields, routeSchema, type SchemaAt } from '../contract/schema-fields';
import type { RouteSpec } from '../contract/routes';

/**
 * An output whose object lacks a field the contract requires (`{ "name": ... }` for an item, which must
 * have `number`; an `updateWorkOrderRequest` without `id`) fails every request's output check, after the
 * ERP was asked (and after it took a step confirmation's write). Where the expression shows what it
 * builds, that is refused at load. Only what can be seen is judged: every branch the expression can give
 * (a condition's both, a block's last, a path's last step, a list's elements) must be an object
 * constructor or null; a function call, a variable or an ERP value passed on could give the field, and
 * then nothing is said. A field is missing when no object the expression can give has it.
 */
export interface OutputFieldProblem {
  /** Offset of the object constructor's `{` in the expression text. */
  readonly offset: number;
  readonly message: string;
}

type Branch = { readonly kind: 'object'; readonly node: OutputNode } | { readonly kind: 'list'; readonly elements: readonly OutputNode[] } | { readonly kind: 'nothing' } | { readonly kind: 'unknown' };

/** Deeper than any hand-written output; the walk stops there rather than follow a hostile tree. */
const MAX_DEPTH = 40;

function branches(node: OutputNode | undefined, depth: number): Branch[] {
  if (!node || depth > MAX_DEPTH) return [{ kind: node ? 'unknown' : 'nothing' }];
  if (node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs)) return [{ kind: 'object', node }];
  if (node.type === 'unary' && node.value === '[') return [{ kind: 'list', elements: node.expressions ?? [] }];
  if (node.type === 'value' && node.value === null) return [{ kind: 'nothing' }];
  if (node.type === 'condition') return [...branches(node.then, depth + 1), ...branches(node.else, depth + 1)];
  if (node.type === 'block') return branches(node.expressions?.at(-1), depth + 1);
  // A path gives what its last step gives, once per item: `lines.{ ... }` is a list of those objects.
  if (node.type === 'path' && node.group === undefined) {
    const last = node.steps?.at(-1);
    return last?.type === 'unary' && last.value === '{' ? branches(last, depth + 1) : [{ kind: 'unknown' }];
  }
  return [{ kind: 'unknown' }];
}


/** `nodes`: every expression that gives the value at this place (a field written in several branches is judged over all of them). */
function check(nodes: readonly OutputNode[], at: SchemaAt, what: string, depth: number, into: OutputFieldProblem[]): void {
  const found = nodes.flatMap((node) => branches(node, depth));
  if (found.some((branch) => branch.kind === 'unknown')) return;
  const items = itemsOf(at);
  for (const branch of found) if (branch.kind === 'list' && items) for (const element of branch.elements) check([element], items, what, depth + 1, into);
  const objects = found.flatMap((branch) => (branch.kind === 'object' ? [branch.node] : []));
  const fields = objectFields(items ?? at);
  if (objects.length === 0 || !fields) return;
  const keys = objects.map((object) => objectPairs(object).map(([key]) => (key.type === 'string' && typeof key.value === 'string' ? key.value : undefined)));
  // A key computed at run time could be any field.
  if (!keys.flat().includes(undefined)) {
    const missing = fields.required.filter((name) => !keys.some((list) => list.includes(name)));
    if (missing.length > 0) {
      const quoted = missing.map((name) => `"${name}"`).join(', ');
      into.push({ offset: Math.max(0, (objects[0].position ?? 1) - 1), message: `${what} is built here without ${quoted}, which the contract requires${objects.length > 1 ? ' (no branch of the expression gives it)' : ''}: every answer would fail the contract's check, after the ERP was asked. Add ${quoted} to the object` });
    }
  }
  const values = new Map<string, OutputNode[]>();
  for (const object of objects) {
    for (const [key, value] of objectPairs(object)) if (typeof key.value === 'string') values.set(key.value, [...(values.get(key.value) ?? []), value]);
  }
  for (const [name, given] of values) {
    const field = fields.properties.get(name);
    if (field) check(given, field, `${what}.${name}`, depth + 1, into);
  }
}

/** What an output expression's tree builds without a field the route's data requires. */
export function missingRequiredFields(tree: unknown, route: RouteSpec): OutputFieldProblem[] {
  if (!route.dataSchema) return [];
  const into: OutputFieldProblem[] = [];
  check([tree as OutputNode], routeSchema(route.dataSchema), `the data of ${route.operationId}`, 0, into);
  return into;
}
