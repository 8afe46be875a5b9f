import { walkTree } from './parse-tree';

/**
 * The `$name(...)` calls of an expression whose name is no function at all: not a JSONata built-in, not
 * an engine helper, not a function of the mapping, not $secret, and bound nowhere in the expression (by
 * `:=`, a lambda's parameter, or a path's `@$x` / `#$i`). Such a call passes JSONata's parser and fails
 * only when it runs ("Attempted to invoke a non-function"), so the load reports it, with the name meant.
 */

export interface UnknownCall {
  readonly name: string;
  /** Offset of the `$` in the expression text. */
  readonly offset: number;
}

/** `known`: every function name the expression may call without binding it itself. */
export function unknownFunctionCalls(tree: unknown, known: ReadonlySet<string>): UnknownCall[] {
  const bound = new Set<string>();
  const calls: { name: string; position: number }[] = [];
  walkTree(tree, (node) => {
    if (node.type === 'bind' && node.lhs?.type === 'variable' && typeof node.lhs.value === 'string') bound.add(node.lhs.value);
    if (node.type === 'lambda') for (const parameter of node.arguments ?? []) if (typeof parameter.value === 'string') bound.add(parameter.value);
    if (typeof node.focus === 'string') bound.add(node.focus);
    if (typeof node.index === 'string') bound.add(node.index);
    if ((node.type === 'function' || node.type === 'partial') && node.procedure?.type === 'variable' && typeof node.procedure.value === 'string') {
      calls.push({ name: node.procedure.value, position: node.procedure.position ?? 0 });
    }
  });
  // `$()` (an empty name) is the context, not a function; JSONata's position is just past the name.
  return calls
    .filter(({ name }) => name !== '' && !known.has(name) && !bound.has(name))
    .map(({ name, position }) => ({ name, offset: Math.max(0, position - name.length - 1) }));
}
