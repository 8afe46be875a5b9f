import { OperationFailure, type FailureKind } from '../errors';
import { describeEvaluationError } from '../expressions/compile';
import type { LocatedExpression } from './model';

/** Runs one expression; a throw becomes an OperationFailure that names the expression's place in the file. */
export async function evaluateAt(expression: LocatedExpression, context: unknown, what: string, kind: FailureKind = 'TRANSFORM_FAILED'): Promise<unknown> {
  try {
    return await expression.evaluate(context);
  } catch (error) {
    const where = `${expression.origin.file}:${expression.origin.line}:${expression.origin.col}`;
    const message = `${what} failed: ${describeEvaluationError(error)}`;
    throw new OperationFailure(kind, `${message} (${where})`, [{ path: what, message: `${describeEvaluationError(error)} (${where})` }]);
  }
}
