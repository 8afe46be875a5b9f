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

/** Every node once, parents before children in source order, without recursion (a deep tree cannot overflow the stack). */
export function walkTree(tree: unknown, visit: (node: TreeNode) => void): void {
  const seen = new Set<unknown>();
  const pending: unknown[] = [tree];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object' || value instanceof RegExp || seen.has(value)) continue;
    seen.add(value);
    const children = Array.isArray(value) ? value : Object.values(value);
    if (!Array.isArray(value)) visit(value as TreeNode);
    for (let index = children.length - 1; index >= 0; index -= 1) pending.push(children[index]);
  }
}

/** The calls `$name(...)` of a tree. */
export function callsOf(tree: unknown, name: string): TreeNode[] {
  const calls: TreeNode[] = [];
  walkTree(tree, (node) => {
    if (node.type === 'function' && node.procedure?.type === 'variable' && node.procedure.value === name) calls.push(node);
  });
  return calls;
}
