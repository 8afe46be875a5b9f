import { evaluateAt } from '../mapping/evaluate';
import type { LocatedExpression } from '../mapping/model';
import type { TraceObserver } from '../trace/observer';

/**
 * evaluateAt, and the observer told what the expression read and gave (dry runs and the studio show
 * each expression of a request that way). Without an expression hook it is evaluateAt itself: no
 * promise of its own and no turn of the microtask queue for each of the dozen expressions of a request.
 */
export function evaluateSeen(expression: LocatedExpression, context: unknown, what: string, observer: TraceObserver | undefined): Promise<unknown> {
  const told = observer?.expression;
  if (!told) return evaluateAt(expression, context, what);
  return evaluateAt(expression, context, what).then((value) => {
    told.call(observer, what, expression, context, value);
    return value;
  });
}
