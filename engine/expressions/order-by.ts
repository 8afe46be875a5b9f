import { GUARDED_SORT } from './guarded-builtins';
import type { Focus } from './guarded-slices';
import { isNode, rewriteTree, type AstNode } from './rewrite-tree';

/**
 * JSONata's order-by syntax `list^(key)` calls the library's own merge sort directly, which copies the
 * rest of the list at every comparison: 100,000 numbers used 1.5 GB before the 5 s time limit stopped
 * them, and a longer limit would run the process out of memory. A step that JSONata evaluates cannot be
 * replaced, but the tree it evaluates can (as concat-operands.ts does for `&`): a path
 * `prefix^(terms).rest` becomes
 *
 *     ( $"order by key 0" := function() { term 0 }; …
 *       $"order by sorted" := $"order by"(prefix, "<directions>", position);
 *       $"order by sorted".rest )
 *
 * where ORDER_BY sorts with the guarded `$sort` (guarded-builtins.ts: the same comparisons in the same
 * order as JSONata's, in slices, with the limits) and compares the terms exactly as JSONata's order-by
 * does (undefined last, T2007 and T2008). Names with a space cannot be written in an expression, so no
 * mapping can reach or hide them.
 *
 * Left to JSONata (docs/mapping-format.md, Limits): an order-by in a path that binds `@`, `#` or reads
 * `%` (a tuple stream: the terms see the bindings), and order-by inside a text given to `$eval`.
 */

const ORDER_BY_FUNCTION = 'order by';
const SORTED = 'order by sorted';

/**
 * A JSONata lambda as its variable holds it (an argument would come wrapped in a closure): JSONata
 * evaluates its body against `input` when it is applied, so setting `input` evaluates the term with an
 * item as its context, as the order-by does. The lambda is made afresh by each evaluation of the block.
 */
interface Term {
  input: unknown;
  apply(self: unknown, args: readonly unknown[]): Promise<unknown>;
}

interface Environment {
  lookup(name: string): unknown;
}

function termName(index: number): string {
  return `order by key ${index}`;
}

/**
 * The sort step's input as JSONata's path would have handed it over. The prefix now ends a path, so a
 * single plain array its last step found comes back as that array, where inside the longer path its
 * items were spread into the sequence (a constructed `[...]` stays one item).
 */
function sequenceOf(focus: Focus, value: unknown): unknown[] {
  const sequence = focus.createSequence ? focus.createSequence() : [];
  const isSequence = Array.isArray(value) && (value as { sequence?: unknown }).sequence === true;
  if (isSequence) return value;
  if (Array.isArray(value) && !(value as { cons?: unknown }).cons) for (const item of value) sequence.push(item);
  else sequence.push(value);
  return sequence;
}

/**
 * JSONata's comparison of two order-by keys (evaluateSortExpression): a missing key sorts last whatever
 * the direction; keys must be texts or numbers (else T2008) of one kind (else T2007). -1 keeps a before b.
 * The interpreter's order-by and the compiled one (fast-path/paths.ts) both compare with it.
 */
export function compareSortKeys(aa: unknown, bb: unknown, descending: boolean): -1 | 0 | 1 | 'T2007' | 'T2008' {
  const atype = typeof aa;
  const btype = typeof bb;
  if (atype === 'undefined') return btype === 'undefined' ? 0 : 1;
  if (btype === 'undefined') return -1;
  if (!(atype === 'string' || atype === 'number') || !(btype === 'string' || btype === 'number')) return 'T2008';
  if (atype !== btype) return 'T2007';
  if (aa === bb) return 0;
  const order = (aa as number | string) < (bb as number | string) ? -1 : 1;
  return descending ? (-order as -1 | 1) : order;
}

async function orderBy(this: Focus & { readonly environment?: Environment }, list: unknown, directions: string, position: number): Promise<unknown> {
  if (list === undefined) return undefined;
  const environment = this.environment as Environment;
  const terms = Array.from(directions, (_, index) => environment.lookup(termName(index)) as Term);
  const key = (term: Term, item: unknown): Promise<unknown> => {
    // JSONata evaluates a term with the item as its context: the lambda's body is evaluated against `input`.
    term.input = item;
    return term.apply(this, []);
  };
  // JSONata's order-by comparator (evaluateSortExpression), term by term; true swaps.
  const comparator = async (a: unknown, b: unknown): Promise<boolean> => {
    let comp = 0;
    for (let index = 0; comp === 0 && index < terms.length; index++) {
      const aa = await key(terms[index], a);
      const bb = await key(terms[index], b);
      const compared = compareSortKeys(aa, bb, directions[index] === 'd');
      if (compared === 'T2008') throw { code: 'T2008', stack: new Error().stack, position, value: typeof aa === 'string' || typeof aa === 'number' ? bb : aa };
      if (compared === 'T2007') throw { code: 'T2007', stack: new Error().stack, position, value: aa, value2: bb };
      comp = compared;
    }
    return comp === 1;
  };
  return GUARDED_SORT.call(this, sequenceOf(this, list), comparator);
}

export const ORDER_BY_BUILTIN = { name: ORDER_BY_FUNCTION, implementation: orderBy };

interface PathNode extends AstNode {
  steps?: AstNode[];
  terms?: { descending?: boolean; expression: AstNode }[];
}

/** What a path and its sort step may carry for the rewrite to give the same answer. */
const PATH_KEYS = new Set(['type', 'steps', 'position', 'keepSingletonArray']);
const SORT_KEYS = new Set(['type', 'position', 'terms', 'stages']);
/** Marks of a tuple stream (`@`, `#`, `%`) or of a step whose result JSONata post-processes. */
const STEP_MARKS = ['focus', 'index', 'tuple', 'ancestor', 'seekingParent', 'group', 'keepArray'];

function rewritable(path: PathNode, at: number): boolean {
  if (at === 0 || !Object.keys(path).every((key) => PATH_KEYS.has(key))) return false;
  const sort = (path.steps as AstNode[])[at] as PathNode;
  if (!Object.keys(sort).every((key) => SORT_KEYS.has(key))) return false;
  if (Array.isArray(sort.stages) && !sort.stages.every((stage) => isNode(stage) && stage.type === 'filter')) return false;
  return (path.steps as AstNode[]).every((step) => STEP_MARKS.every((mark) => !(mark in step)));
}

function orderedPath(path: PathNode, at: number): AstNode {
  const steps = path.steps as AstNode[];
  const sort = steps[at] as PathNode;
  const position = typeof sort.position === 'number' ? sort.position : 0;
  const terms = sort.terms ?? [];
  const bind = (name: string, value: AstNode): AstNode => ({ type: 'bind', value: ':=', position, lhs: { type: 'variable', value: name, position }, rhs: value });
  const call: AstNode = {
    type: 'function',
    value: '(',
    position,
    procedure: { type: 'variable', value: ORDER_BY_FUNCTION, position },
    arguments: [
      { type: 'path', steps: steps.slice(0, at), position },
      { type: 'string', value: terms.map((term) => (term.descending ? 'd' : 'a')).join(''), position },
      { type: 'number', value: position, position },
    ],
  };
  const keys = terms.map((term, index) => bind(termName(index), { type: 'lambda', arguments: [], body: term.expression, position }));
  const sorted: AstNode = { type: 'variable', value: SORTED, position, ...(sort.stages ? { stages: sort.stages } : {}) };
  const rest: AstNode = { type: 'path', steps: [sorted, ...steps.slice(at + 1)], position, ...(path.keepSingletonArray ? { keepSingletonArray: true } : {}) };
  return { type: 'block', position, expressions: [...keys, bind(SORTED, call), rest] };
}

/** Rewrites, in place, every order-by step the guarded sort can run (paths without `@`, `#` or `%`). */
export function writeOrderBy(ast: unknown): void {
  rewriteTree(ast, (node: PathNode) => {
    if (node.type !== 'path' || !Array.isArray(node.steps)) return;
    // The last sort: the prefix of the rewritten path holds the earlier ones, rewritten when it is walked.
    const at = node.steps.map((step) => step.type).lastIndexOf('sort');
    if (at < 0 || !rewritable(node, at)) return;
    const replacement = orderedPath(node, at);
    for (const key of Object.keys(node)) delete node[key];
    Object.assign(node, replacement);
  });
}
