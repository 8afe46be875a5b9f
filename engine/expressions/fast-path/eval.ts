import jsonata from 'jsonata';
import { findLongListLiteral } from '../long-lists';
import { findUnsupportedRegex } from '../regex';
import { lookupVariable } from './builtins';
import type { Compile, Evaluator } from './paths';
import { CALL_DEPTH, FALLBACK, apply, createSequence, functionArgument, isSequence } from './runtime';
import { checkSubset, treeDepth, type AstNode } from './subset';

/** Compiles a tree of its own (the text `$eval` parses) with the names it binds. */
export type CompileTree = (root: AstNode, lambdaNames: ReadonlySet<string>) => Evaluator;

/** guarded-eval.ts's limit: the longest text `$eval` parses. */
const MAX_EVAL_TEXT = 100_000;

/**
 * `$eval(text, context?)` called by its name: JSONata's functionEval with guarded-eval.ts's checks. The
 * text is parsed and checked as at load (long lists, regular expressions RE2 cannot run, the subset),
 * compiled to closures, and evaluated in the caller's frame, as JSONata evaluates it in the caller's
 * environment. A text that does not parse, fails a check or fails to evaluate is the interpreter's to
 * report (D3120, D3121).
 */
export function evalValue(node: AstNode, compile: Compile, compileTree: CompileTree): Evaluator {
  const args = (node.arguments as AstNode[]).map(compile);
  return (input, frame, run) => {
    const values = args.map((arg) => functionArgument(run, arg(input, frame, run)));
    // A mapping's own `$eval` (a binding of that name) is called as any function.
    for (let scope: typeof frame | undefined = frame; scope; scope = scope.parent) if ('eval' in scope.vars) return apply(run, lookupVariable(run, frame, 'eval'), values, input);
    const [text, focus] = values;
    if (values.length > 2 || (text !== undefined && typeof text !== 'string')) throw FALLBACK; // the signature <sx?:x>
    if (text === undefined) return undefined;
    if (text.length > MAX_EVAL_TEXT) throw FALLBACK;
    let context = input;
    if (focus !== undefined) {
      context = focus;
      if (Array.isArray(context) && !isSequence(context)) {
        const wrapped = createSequence(run, context);
        wrapped.outerWrapper = true;
        context = wrapped;
      }
    }
    let root: AstNode;
    try {
      root = jsonata(text).ast() as AstNode;
    } catch {
      throw FALLBACK;
    }
    if (findLongListLiteral(root, run.maxDepth) || findUnsupportedRegex(root, text)) throw FALLBACK;
    const verdict = checkSubset(root, run.maxDepth, new Set());
    if (!verdict.supported) throw FALLBACK;
    const cost = treeDepth(root) + CALL_DEPTH;
    run.depth += cost;
    if (run.depth > run.maxDepth) throw FALLBACK;
    const result = compileTree(root, verdict.lambdaNames)(context, frame, run);
    run.depth -= cost;
    return result;
  };
}
