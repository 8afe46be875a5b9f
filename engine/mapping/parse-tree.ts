/**
 * JSONata's parse tree as the load checks read it (`$isoDateTime`'s literal arguments, `$secret`'s
 * names, unknown `$functions`): one walk for all of them.
 */
export interface TreeNode {
  readonly type?: string;
  readonly value?: unknown;
  /** Just after the node's token in the expression text. */
  readonly position?: number;
  readonly procedure?: TreeNode;
  readonly arguments?: readonly TreeNode[];
  readonly lhs?: TreeNode;
  readonly focus?: unknown;
  readonly index?: unknown;
}

/**
 * The nodes an output's shape is read from (objects, lists, blocks, conditions, paths): what the output
 * checks (output-required.ts) and the field positions (output-fields.ts) walk. An object literal's `lhs`
 * holds its key/value pairs, read with `objectPairs`.
 */
export interface OutputNode {
  readonly type?: string;
  readonly value?: unknown;
  readonly position?: number;
  readonly lhs?: unknown;
  readonly expressions?: readonly OutputNode[];
  readonly steps?: readonly OutputNode[];
  readonly group?: unknown;
  readonly then?: OutputNode;
  readonly else?: OutputNode;
}

/** An object literal's (`{` unary) key/value pairs; none for any other node. */
export function objectPairs(node: OutputNode): readonly (readonly [OutputNode, OutputNode])[] {
  return node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs) ? (node.lhs as readonly (readonly [OutputNode, OutputNode])[]) : [];
}

/**
 * The nodes of each tree in walking order, found once: the load's checks walk every expression's tree
 * four times, and mappings of one template share their trees (CHECKED_EXPRESSIONS in compile.ts), so
 * 200 such mappings walked each tree 800 times. The trees the checks read are never changed.
 */
const WALK_ORDERS = new WeakMap<object, readonly TreeNode[]>();

/** Every node once, parents before children in source order, without recursion (a deep tree cannot overflow the stack). */
export function walkTree(tree: unknown, visit: (node: TreeNode) => void): void {
  if (tree === null || typeof tree !== 'object') return;
  let order = WALK_ORDERS.get(tree);
  if (!order) {
    order = walkOrder(tree);
    WALK_ORDERS.set(tree, order);
  }
  for (const node of order) visit(node);
}

function walkOrder(tree: object): TreeNode[] {
  const order: TreeNode[] = [];
  const seen = new Set<unknown>();
  const pending: unknown[] = [tree];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object' || value instanceof RegExp || seen.has(value)) continue;
    seen.add(value);
    const children = Array.isArray(value) ? value : Object.values(value);
    if (!Array.isArray(value)) order.push(value as TreeNode);
    for (let index = children.length - 1; index >= 0; index -= 1) pending.push(children[index]);
  }
  return order;
}

/** The calls `$name(...)` of a tree. */
export function callsOf(tree: unknown, name: string): TreeNode[] {
  const calls: TreeNode[] = [];
  walkTree(tree, (node) => {
    if (node.type === 'function' && node.procedure?.type === 'variable' && node.procedure.value === name) calls.push(node);
  });
  return calls;
}

/** Whether a tree reads `response.status` (or `$$.response.status`): a path with those two steps in a row. */
export function readsResponseStatus(tree: unknown): boolean {
  let found = false;
  walkTree(tree, (node) => {
    const steps = (node as { readonly steps?: readonly TreeNode[] }).steps;
    if (found || node.type !== 'path' || !steps) return;
    found = steps.some((step, index) => step.type === 'name' && step.value === 'response' && steps[index + 1]?.type === 'name' && steps[index + 1]?.value === 'status');
  });
  return found;
}
