import { driveSteps, type Focus } from './guarded-slices';
import { isNode, rewriteTree, type AstNode } from './rewrite-tree';

/**
 * JSONata's grouping `list{ key: value }` (and an object constructor `{ key: value }` whose keys are not
 * all text literals, which groups its context the same way) evaluates the value of every group at once
 * (Promise.all): each evaluation raises the interpreter's depth counter before any of them returns, so
 * the recursion limit counted groups, not nesting (249 rows of distinct keys failed with D1011 at the
 * default depth of 500), and the groups ran outside the time limit's reach. It also appends each item to
 * its group by copying the group (quadratic for one big group). A step JSONata evaluates cannot be
 * replaced, but the tree it evaluates can (as order-by.ts does for `^( )`): `X{ k0: v0, ... }` becomes
 *
 *     ( $"group by key 0" := function() { k0 }; $"group by value 0" := function() { v0 }; …
 *       $"group by"(position, pair count, X) )
 *
 * where X keeps what it had but the grouping and is marked to keep a one-item sequence as a sequence
 * (JSONata groups the step's result before it unwraps it). GROUP_BY evaluates the keys item by item and
 * then the values group by group, one at a time, in slices with the time limit (guarded-slices.ts), and
 * gives JSONata's answer: the same groups in the same order, each group's items as its repeated
 * `$append` would have joined them, the same errors (T1003, D1013, D1009, D2015). For an object
 * constructor the call has no X and groups its context (`this.input`). Names with a space cannot be
 * written in an expression, so no mapping can reach or hide them.
 *
 * Left to JSONata (docs/mapping-format.md, Limits): a grouping of a path that binds `@` or `#` or reads
 * `%` (a tuple stream: the keys see the bindings), and grouping inside a text given to `$eval`.
 */

const GROUP_BY_FUNCTION = 'group by';

/** A JSONata lambda as its variable holds it; setting `input` evaluates its body with that context (order-by.ts). */
interface Term {
  input: unknown;
  apply(self: unknown, args: readonly unknown[]): Promise<unknown>;
}

interface Environment {
  lookup(name: string): unknown;
}

type GroupFocus = Focus & { readonly environment?: Environment; readonly input?: unknown };

function keyName(index: number): string {
  return `group by key ${index}`;
}

function valueName(index: number): string {
  return `group by value ${index}`;
}

interface Group {
  readonly exprIndex: number;
  readonly first: unknown;
  /** Every item after the first, in order; undefined while the group has one. */
  rest?: unknown[];
}

/** What JSONata's repeated `$append(group, item)` gives, built once: the first item alone, else one flat array. */
function groupData(focus: GroupFocus, group: Group): unknown {
  if (group.rest === undefined) return group.first;
  const joined: unknown[] = [];
  const add = (value: unknown) => {
    if (Array.isArray(value)) for (const item of value) joined.push(item);
    else joined.push(value);
  };
  add(group.first);
  for (const item of group.rest) add(item);
  const limit = focus.options?.sequence;
  if (typeof limit === 'number' && limit > 0 && joined.length > limit) throw { code: 'D2015', stack: new Error().stack, value: joined.length };
  return joined;
}

/** The items JSONata's evaluateGroupExpression groups: a non-list is one item, nothing at all is one undefined item. */
function itemsOf(focus: GroupFocus, value: unknown): readonly unknown[] {
  if (!Array.isArray(value)) return focus.createSequence ? focus.createSequence(value) : [value];
  // JSONata pushes the undefined item into the list itself, which may be the caller's data: a new list instead.
  return value.length === 0 ? [undefined] : value;
}

function checkKey(key: unknown, position: number): key is string | undefined {
  if (typeof key !== 'string' && key !== undefined) throw { code: 'T1003', stack: new Error().stack, position, value: key };
  if (key === '_jsonata_lambda' || key === '_jsonata_function') throw { code: 'D1013', stack: new Error().stack, position, value: key };
  return true;
}

async function groupBy(this: GroupFocus, position: number, pairCount: number, ...list: [] | [unknown]): Promise<unknown> {
  const environment = this.environment as Environment;
  const items = itemsOf(this, list.length === 0 ? this.input : list[0]);
  // Counted, not looked up until missing: an enclosing grouping's terms are visible here too.
  const keys = Array.from({ length: pairCount }, (_, index) => environment.lookup(keyName(index)) as Term);
  const values = Array.from({ length: pairCount }, (_, index) => environment.lookup(valueName(index)) as Term);
  const groups = Object.create(null) as Record<string, Group>;
  let itemIndex = 0;
  const keyStep = async (): Promise<boolean> => {
    const item = items[itemIndex];
    for (let pairIndex = 0; pairIndex < keys.length; pairIndex++) {
      const term = keys[pairIndex];
      term.input = item;
      const key = await term.apply(this, []);
      if (!checkKey(key, position) || key === undefined) continue;
      const group = groups[key];
      if (group === undefined) {
        groups[key] = { exprIndex: pairIndex, first: item };
        continue;
      }
      // One key from two key expressions: JSONata's D1009.
      if (group.exprIndex !== pairIndex) throw { code: 'D1009', stack: new Error().stack, position, value: key };
      (group.rest ??= []).push(item);
    }
    return ++itemIndex >= items.length;
  };
  await driveSteps(this, keyStep, () => undefined);
  // Object.keys of a null-prototype object: JSONata's order (integer-like keys first, as numbers).
  const names = Object.keys(groups);
  const result = Object.create(null) as Record<string, unknown>;
  let groupIndex = 0;
  const valueStep = async (): Promise<boolean> => {
    if (groupIndex >= names.length) return true;
    const name = names[groupIndex];
    const group = groups[name];
    const term = values[group.exprIndex];
    term.input = groupData(this, group);
    const value = await term.apply(this, []);
    if (value !== undefined) result[name] = value;
    return ++groupIndex >= names.length;
  };
  await driveSteps(this, valueStep, () => undefined);
  return result;
}

export const GROUP_BY_BUILTIN = { name: GROUP_BY_FUNCTION, implementation: groupBy };

type Pair = [AstNode, AstNode];

/** Marks of a tuple stream (`@`, `#`, `%`): the keys would see its bindings. */
const TUPLE_MARKS = ['focus', 'index', 'tuple', 'ancestor', 'seekingParent'];

function readsParent(node: unknown): boolean {
  let found = false;
  rewriteTree(node, (child) => {
    if (child.type === 'parent') found = true;
  });
  return found;
}

function rewritable(node: AstNode, pairs: readonly Pair[]): boolean {
  if (TUPLE_MARKS.some((mark) => mark in node)) return false;
  if (node.type === 'path' && (node.steps as AstNode[]).some((step) => TUPLE_MARKS.some((mark) => mark in step))) return false;
  return !pairs.some(([key, value]) => readsParent(key) || readsParent(value));
}

function groupedBlock(pairs: readonly Pair[], position: number, list: AstNode | undefined): AstNode {
  const bind = (name: string, body: AstNode): AstNode => ({
    type: 'bind', value: ':=', position, lhs: { type: 'variable', value: name, position }, rhs: { type: 'lambda', arguments: [], body, position },
  });
  const terms = pairs.flatMap(([key, value], index) => [bind(keyName(index), key), bind(valueName(index), value)]);
  const call: AstNode = {
    type: 'function',
    value: '(',
    position,
    procedure: { type: 'variable', value: GROUP_BY_FUNCTION, position },
    arguments: [{ type: 'number', value: position, position }, { type: 'number', value: pairs.length, position }, ...(list ? [list] : [])],
  };
  return { type: 'block', position, expressions: [...terms, call] };
}

function replace(node: AstNode, replacement: AstNode): void {
  for (const key of Object.keys(node)) delete node[key];
  Object.assign(node, replacement);
}

/** Rewrites, in place, every grouping the guarded GROUP_BY can run (see above); call it after the fast path was built. */
export function writeGroupBy(ast: unknown): void {
  rewriteTree(ast, (node) => {
    const group = node.group;
    if (isNode(group) && Array.isArray(group.lhs)) {
      const pairs = group.lhs as Pair[];
      if (!rewritable(node, pairs)) return;
      const list: AstNode = { ...node, keepArray: true };
      delete list.group;
      replace(node, groupedBlock(pairs, typeof group.position === 'number' ? group.position : 0, list));
      return;
    }
    if (node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs)) {
      const pairs = node.lhs as Pair[];
      // Text-literal keys make at most one group per pair: nothing to gain, and the common constructor stays JSONata's.
      if (pairs.every(([key]) => key.type === 'string') || !rewritable(node, pairs)) return;
      replace(node, groupedBlock(pairs, typeof node.position === 'number' ? node.position : 0, undefined));
    }
  });
}
