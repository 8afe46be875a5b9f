import { evaluateAt } from '../mapping/evaluate';
import type { LocatedExpression } from '../mapping/model';
import type { TraceObserver } from '../trace/observer';

/**
 * evaluateAt, and the observer told what the expression read and gave (dry runs and the studio show
 * each expression of a request that way). Without an expression hook it is evaluateAt.
 */
export async function evaluateSeen(expression: LocatedExpression, context: unknown, what: string, observer: TraceObserver | undefined): Promise<unknown> {
  const value = await evaluateAt(expression, context, what);
  observer?.expression?.(what, expression, context, value);
  return value;
}
