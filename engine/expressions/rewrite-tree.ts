/**
 * The walk of the rewrites of JSONata's tree (concat-operands.ts, order-by.ts): every node once, each
 * handed to `rewrite` before its children are walked, so what a rewrite puts in its place is walked too.
 */

export interface AstNode {
  type?: unknown;
  value?: unknown;
  position?: number;
  [key: string]: unknown;
}

export function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !(value instanceof RegExp);
}

export function rewriteTree(ast: unknown, rewrite: (node: AstNode) => void): void {
  const pending: unknown[] = [ast];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const node = pending.pop();
    if (!isNode(node) || seen.has(node)) continue;
    seen.add(node);
    rewrite(node);
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) pending.push(child);
  }
}
