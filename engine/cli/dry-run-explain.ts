import type { ExpressionExplanation } from '../expressions/compile';
import { locatedExpressions } from '../mapping/interpreted';
import type { Mapping } from '../mapping/model';
import { out } from './output';

/**
 * `dry-run --explain`: how each expression that ran in the dry run was evaluated, and the JavaScript
 * generated for it (docs/expressions-compiled.md). The mapping is loaded for the one run, so an
 * expression whose counts are not zero ran in it.
 */
export interface ExplainedExpression extends ExpressionExplanation {
  readonly at: string;
  readonly source: string;
  /** Evaluations in this run: by the fast path (compiled or closures), handed to the interpreter after a try, by the interpreter alone. */
  readonly evaluations: { readonly fast: number; readonly fallback: number; readonly interpreter: number };
}

/** Every expression of the mapping that was evaluated at least once, in file order. */
export function explainExpressions(mapping: Mapping): ExplainedExpression[] {
  return locatedExpressions(mapping)
    .filter(({ stats }) => stats.fast + stats.fallback + stats.interpreter > 0)
    .map((expression) => ({ at: `${expression.origin.file}:${expression.origin.line}:${expression.origin.col}`, source: expression.source, evaluations: { ...expression.stats }, ...expression.explain() }));
}

export function renderExplained(explained: readonly ExplainedExpression[]): void {
  out.line('');
  out.line(`expressions evaluated: ${explained.length}`);
  for (const expression of explained) {
    const { fast, fallback, interpreter } = expression.evaluations;
    out.line('');
    out.line(`${expression.at}  ${expression.source.trim().replace(/\s+/g, ' ')}`);
    out.line(`  runs: ${expression.runs}${expression.why ? ` (${expression.why})` : ''}; evaluations: ${fast} fast, ${fallback} handed to the interpreter, ${interpreter} interpreter only`);
    if (expression.delegated && expression.delegated.length > 0) out.line(`  closures for: ${expression.delegated.join(', ')}`);
    if (expression.code !== undefined) for (const line of expression.code.split('\n')) out.line(`  | ${line}`);
  }
}
