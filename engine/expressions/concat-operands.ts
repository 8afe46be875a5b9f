/**
 * JSONata's `&` operator writes an operand that is not a text with its own `$string`: one
 * JSON.stringify, which for a list of five million numbers blocked every request of the process for
 * about 2 s, out of reach of the time limit. The operator cannot be replaced, but its operands can be
 * written first: each operand of `&` that is not a text literal is wrapped, in the tree JSONata
 * evaluates (`expression.ast()`), in a call of the guarded `$string` (guarded-json.ts). The operator then
 * only joins two texts (its `$string` of a text is the text itself), and the writing runs in slices, with
 * the time and text limits, like a `$string` written out.
 *
 * The call names the function by a variable no expression can spell (the space), so a mapping's own
 * `$string := ...` inside a block cannot change what `&` does. `$string` gives nothing for nothing, and
 * `&` reads nothing as "", so a missing operand still joins as an empty text.
 */

import { isNode, rewriteTree } from './rewrite-tree';

/** The name the guarded `$string` is also registered under, for `&` alone. */
export const CONCAT_STRING_FUNCTION = 'concat string';

function written(operand: unknown): unknown {
  if (!isNode(operand) || operand.type === 'string') return operand;
  const position = typeof operand.position === 'number' ? operand.position : 0;
  return { type: 'function', value: '(', position, arguments: [operand], procedure: { type: 'variable', value: CONCAT_STRING_FUNCTION, position } };
}

/** Wraps the operands of every `&` in the tree (after the fast path compiled it: it writes with the guarded `$string` itself). */
export function writeConcatOperands(ast: unknown): void {
  rewriteTree(ast, (node) => {
    if (node.type === 'binary' && node.value === '&') {
      node.lhs = written(node.lhs);
      node.rhs = written(node.rhs);
    }
  });
}
