import path from 'node:path';
import { OperationFailure, type FailureKind } from '../errors';
import { describeEvaluationError } from '../expressions/compile';
import type { LocatedExpression } from './model';

/** Runs one expression; a throw becomes an OperationFailure that names the expression's place in the file. */
export async function evaluateAt(expression: LocatedExpression, context: unknown, what: string, kind: FailureKind = 'TRANSFORM_FAILED'): Promise<unknown> {
  try {
    return await expression.evaluate(context);
  } catch (error) {
    const at = `${expression.origin.line}:${expression.origin.col}`;
    const message = `${what} failed: ${describeEvaluationError(error)}`;
    // The log gets the mapping file's full path; the platform only its name (no server paths in answers).
    throw new OperationFailure(kind, `${message} (${expression.origin.file}:${at})`, [{ path: what, message: `${describeEvaluationError(error)} (${path.basename(expression.origin.file)}:${at})` }], undefined, error);
  }
}
