import type { Evaluator } from '../compile-node';
import type { AstNode } from '../subset';
import { functionFor } from './generate';
import { HELPER_NAMES, HELPERS, type Helpers } from './helpers';
import { Unit } from './unit';

/**
 * The fast path's code generator: one JavaScript function per expression, written from the parse tree
 * that passed checkSubset, as AJV writes one per schema. V8 then optimises the expression as one piece
 * instead of a chain of closure calls. Generated only from the tree (literals.ts): the mapping's text
 * is data in the source, never code. Subtrees it leaves to the closures are called through `C`.
 */
export interface GeneratedExpression {
  readonly evaluate: Evaluator;
  /** The source of the function, as `dry-run --explain` shows it. */
  readonly source: string;
  /** The kinds of subtree that run as closures of the closure fast path (empty when none). */
  readonly delegated: readonly string[];
}

type Factory = (h: Helpers, K: readonly unknown[], C: readonly Evaluator[]) => Evaluator;

/** The generated source: unpack the helpers, the node functions, then the evaluator. */
function generateSource(root: AstNode, lambdaNames: ReadonlySet<string>): { readonly source: string; readonly unit: Unit } {
  const unit = new Unit(lambdaNames);
  const rootFunction = functionFor(root, unit);
  const source = ["'use strict';", `const { ${HELPER_NAMES.join(', ')} } = h;`, ...unit.lines, `return ${rootFunction};`].join('\n');
  return { source, unit };
}

export type CodegenSupport = { readonly enabled: true } | { readonly enabled: false; readonly reason: string };

let support: CodegenSupport | undefined;

/**
 * Whether this process may compile code from strings: Node's `--disallow-code-generation-from-strings`
 * (or a policy) makes `new Function` throw EvalError. Tried once; the closure fast path runs instead.
 */
export function codegenSupport(): CodegenSupport {
  if (support) return support;
  try {
    support = (new Function('return true') as () => boolean)() ? { enabled: true } : { enabled: false, reason: 'new Function gave a wrong answer' };
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    support = { enabled: false, reason: `code generation from strings is disallowed in this process (${error.message}); expressions run on the closure fast path (same answers, slower)` };
  }
  return support;
}

/** The generated evaluator of a checked tree, or undefined when this process cannot compile code. */
export function generateEvaluator(root: AstNode, lambdaNames: ReadonlySet<string>): GeneratedExpression | undefined {
  if (!codegenSupport().enabled) return undefined;
  const { source, unit } = generateSource(root, lambdaNames);
  // The parameter names are the compiler's; the body is generateSource's, written from the tree only.
  const factory = new Function('h', 'K', 'C', source) as Factory;
  return { evaluate: factory(HELPERS, Object.freeze([...unit.constants]), Object.freeze([...unit.closures])), source, delegated: [...new Set(unit.delegated)] };
}
