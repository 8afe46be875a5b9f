import { HELPER_FUNCTIONS } from '../functions';
import type { AstNode } from './subset';

/**
 * Which top-level fields of an object input an expression can read, when nothing else can change its
 * result. A caller that evaluates one expression over many similar inputs (a CSV file's rows: the unit
 * column holds a handful of codes over 200,000 rows) may then reuse a result for every input that is
 * equal on those fields. Only trees that passed checkSubset are analysed: no wildcard, descendant, parent,
 * filter or transform, and no built-in that reads a clock or a random source.
 *
 * The input is reachable in three ways, each followed here:
 * - a field name at the start of a path evaluated against the input (`unit`, `order.line`);
 * - `$` where the context is the input: the whole input (the answer is then "cannot tell");
 * - a built-in whose signature lets it take the context for a missing argument (`$uppercase()`, and
 *   `$substring(n, 1)` when `n` is not a text): the whole input again, so a call of one where the
 *   context is the input also gives "cannot tell". A lambda's body sees the context it was defined in
 *   (the interpreter's `procedure.input`), so functions defined at the top read the input too.
 * `$$` is the input wherever it appears. After the first step of a path, the context is that step's
 * result, never the input.
 */

/**
 * JSONata 2.2's fast-path built-ins whose signature has `-` (the context stands in for a missing
 * argument); `input-fields.test.ts` checks this list against JSONata's own signatures.
 */
export const CONTEXT_TAKING_BUILTINS: ReadonlySet<string> = new Set([
  'string', 'lookup', 'boolean', 'not', 'number', 'length', 'substring', 'substringBefore', 'substringAfter',
  'uppercase', 'lowercase', 'trim', 'keys', 'abs', 'floor', 'ceil', 'round', 'contains', 'split',
]);

const CONTEXT_TAKING: ReadonlySet<string> = new Set([
  ...CONTEXT_TAKING_BUILTINS,
  ...HELPER_FUNCTIONS.filter((helper) => helper.signature.includes('-')).map((helper) => helper.name),
]);

/** Helpers that give a new value at every call ($uuid): a result of one input is never another's. */
const VARYING: ReadonlySet<string> = new Set(HELPER_FUNCTIONS.filter((helper) => helper.varies).map((helper) => helper.name));

class WholeInput extends Error {}

function signatureTakesContext(lambda: AstNode): boolean {
  const signature = lambda.signature as { definition?: unknown } | undefined;
  if (signature === undefined) return false;
  return typeof signature.definition !== 'string' || signature.definition.includes('-');
}

function visit(node: AstNode | undefined, atInput: boolean, fields: Set<string>): void {
  if (!node) return;
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value':
      return;
    case 'name':
      if (atInput) fields.add(node.value as string);
      return;
    case 'variable':
      if (node.value === '$' || (node.value === '' && atInput)) throw new WholeInput();
      return;
    case 'path': {
      const steps = node.steps as AstNode[];
      steps.forEach((step, index) => visit(step, atInput && index === 0, fields));
      return;
    }
    case 'unary':
      if (node.value === '-') visit(node.expression as AstNode, atInput, fields);
      else if (node.value === '[') for (const item of node.expressions as AstNode[]) visit(item, atInput, fields);
      else for (const pair of node.lhs as AstNode[][]) for (const part of pair) visit(part, atInput, fields);
      return;
    case 'binary':
      visit(node.lhs as AstNode, atInput, fields);
      visit(node.rhs as AstNode, atInput, fields);
      return;
    case 'condition':
      for (const part of [node.condition, node.then, node.else] as (AstNode | undefined)[]) visit(part, atInput, fields);
      return;
    case 'block':
      for (const expression of node.expressions as AstNode[]) visit(expression, atInput, fields);
      return;
    case 'bind':
      visit(node.rhs as AstNode, atInput, fields);
      return;
    case 'lambda':
      if (signatureTakesContext(node)) throw new WholeInput();
      // The body runs in the context the lambda was defined in, wherever it is called from.
      visit(node.body as AstNode, atInput, fields);
      return;
    case 'function': {
      const name = (node.procedure as AstNode).value as string;
      if ((atInput && CONTEXT_TAKING.has(name)) || VARYING.has(name)) throw new WholeInput();
      for (const argument of node.arguments as AstNode[]) visit(argument, atInput, fields);
      return;
    }
    default:
      throw new WholeInput(); // a node checkSubset does not admit: nothing can be told about it
  }
}

/**
 * The top-level fields of an object input that `root` (a tree that passed checkSubset, prelude
 * included) can read, sorted; undefined when it may read the whole input.
 */
export function inputFieldsRead(root: AstNode): readonly string[] | undefined {
  const fields = new Set<string>();
  try {
    visit(root, true, fields);
  } catch (error) {
    if (error instanceof WholeInput) return undefined;
    throw error;
  }
  return Object.freeze([...fields].sort());
}
