import { HELPER_FUNCTIONS } from '../functions';
import type { AstNode } from './subset';

/**
 * Which top-level fields of an object input an expression can read, when nothing else can change its
 * result. A caller that evaluates one expression over many similar inputs (a CSV file's rows: the unit
 * column holds a handful of codes over 200,000 rows) may then reuse a result for every input that is
 * equal on those fields. Only the plain parts of the language are followed (paths of names, operators,
 * constructors, conditions, blocks, functions called by name): a wildcard, descendant, parent, filter,
 * group, transform or order-by, a call of something other than a name, or a built-in that reads a clock
 * or a random source gives "cannot tell".
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
  'string', 'substring', 'substringBefore', 'substringAfter', 'lowercase', 'uppercase', 'length', 'trim', 'pad', 'match',
  'contains', 'replace', 'split', 'formatNumber', 'formatBase', 'formatInteger', 'parseInteger', 'number', 'floor', 'ceil',
  'round', 'abs', 'sqrt', 'power', 'boolean', 'not', 'keys', 'lookup', 'sift', 'each', 'fromMillis', 'toMillis',
  'base64encode', 'base64decode', 'encodeUrlComponent', 'encodeUrl', 'decodeUrlComponent', 'decodeUrl', 'clone',
]);

/** Built-ins whose answer depends on something besides their arguments (a clock, a random source, a text to evaluate). */
const IMPURE_BUILTINS: ReadonlySet<string> = new Set(['random', 'shuffle', 'now', 'millis', 'eval']);

/**
 * The fields the analysis follows for each node type; a node with any other (a filter, a group, a tuple
 * binding, order-by...) or of another type gives "cannot tell".
 */
const FOLLOWED: Readonly<Record<string, readonly string[]>> = {
  path: ['steps'], name: ['value'], string: ['value'], number: ['value'], value: ['value'], variable: ['value'],
  unary: ['value', 'expression', 'expressions', 'lhs', 'consarray'], binary: ['value', 'lhs', 'rhs'], condition: ['condition', 'then', 'else'],
  block: ['expressions'], bind: ['value', 'lhs', 'rhs'], function: ['value', 'procedure', 'arguments'], lambda: ['arguments', 'body', 'signature', 'thunk'],
};

function followed(node: AstNode): boolean {
  const keys = FOLLOWED[node.type];
  return keys !== undefined && Object.keys(node).every((key) => node[key] === undefined || key === 'type' || key === 'position' || keys.includes(key));
}

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
  if (!followed(node)) throw new WholeInput();
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value':
      return;
    case 'name':
      if (atInput) fields.add(node.value as string);
      return;
    case 'variable':
      if (node.value === '$' || (node.value === '' && atInput) || IMPURE_BUILTINS.has(node.value as string) || VARYING.has(node.value as string)) throw new WholeInput();
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
      const procedure = node.procedure as AstNode;
      if (procedure.type !== 'variable') throw new WholeInput();
      const name = procedure.value as string;
      if ((atInput && CONTEXT_TAKING.has(name)) || IMPURE_BUILTINS.has(name) || VARYING.has(name)) throw new WholeInput();
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
