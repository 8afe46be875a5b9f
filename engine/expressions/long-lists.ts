/**
 * A `[...]` constructor with more items than the depth limit: the interpreter starts every item at once
 * and counts each against the limit, so it always fails (D1011), and with tens of thousands of items it
 * spends seconds building the errors, during which nothing else runs. Refused at load instead, and in
 * a text given to `$eval` before it runs (guarded-eval.ts).
 */
export function findLongListLiteral(ast: unknown, maxDepth: number): { message: string; position: number } | undefined {
  if (!(maxDepth > 0)) return undefined;
  const pending: unknown[] = [ast];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object' || node instanceof RegExp) continue;
    const { type, value, expressions, position } = node as { type?: unknown; value?: unknown; expressions?: unknown; position?: unknown };
    if (type === 'unary' && value === '[' && Array.isArray(expressions) && expressions.length > maxDepth) {
      // The position is just after the "[".
      const items = expressions.length;
      const message = `a list written out with ${items} items cannot be evaluated: JSONata counts every item of a [...] against the recursion limit (expressionMaxDepth, ${maxDepth}); use a range such as [1..${items}], or split the list`;
      return { message, position: typeof position === 'number' ? position - 1 : 0 };
    }
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') pending.push(child);
  }
  return undefined;
}
