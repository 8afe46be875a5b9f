import type { AstNode } from './subset';

/**
 * A function value in an answer is the interpreter's to give (index.ts walks the answer for one once a
 * function value was made in the evaluation). Most function values never get there: a lambda written
 * as `$map`'s or `$sort`'s argument, a shared function passed by name (`$map($names, $lot)`), a regular
 * expression given to `$match`. These built-ins only call the function at these argument positions
 * and answer with items of their lists, the calls' results or texts, never with the function itself.
 * So making or reading the function there need not send the answer through the walk; a function the
 * calls make (a lambda written in the body, a function read as a value there) still does.
 */
const CALLED_ONLY: Readonly<Record<string, readonly number[]>> = Object.freeze({
  map: [1], filter: [1], reduce: [1], sift: [1], each: [1], single: [1], sort: [1],
  match: [1], replace: [1, 2], split: [1], contains: [1],
});

/**
 * A node whose evaluation makes or reads one function value and nothing else: a lambda written in
 * place, a variable, a regular expression. Anything else may make function values that end elsewhere.
 */
function onlyTheFunction(node: AstNode): boolean {
  if (node.predicate !== undefined || node.group !== undefined || node.stages !== undefined || node.keepArray !== undefined) return false;
  if (node.type === 'lambda') return node.thunk !== true;
  if (node.type === 'variable') return node.value !== '' && node.value !== '$';
  return node.type === 'regex';
}

/**
 * Per argument of a call of the built-in `name` (`offset`: 1 for `lhs ~> $name(args)`, whose left side
 * is the first argument), whether the function it gives is only called: then the evaluation's
 * `functionsMade` is put back as it was before the argument. Empty for a function of the mapping.
 */
export function calledOnlyArguments(name: string, args: readonly AstNode[], offset = 0): readonly boolean[] {
  const positions = Object.hasOwn(CALLED_ONLY, name) ? CALLED_ONLY[name] : undefined;
  return args.map((arg, index) => positions !== undefined && positions.includes(index + offset) && onlyTheFunction(arg));
}
