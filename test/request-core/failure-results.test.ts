import { describe, expect, it } from 'vitest';
import { toEnvelope } from '../../engine/contract/envelope';
import { hasResult, ROUTES } from '../../engine/contract/routes';
import { failureOutcome } from '../../engine/core/dispatch';
import { FAILURE_RESULTS, OperationFailure, type FailureKind } from '../../engine/errors';

/** Every way a request can fail, on every route, lands on a result that route has, and is no success. */
const KINDS = Object.keys(FAILURE_RESULTS) as FailureKind[];
const PAIRS = ROUTES.flatMap((route) => KINDS.map((kind) => [route, kind] as const));

describe('failure kinds × routes', () => {
  it('covers every pair (19 routes × every failure kind)', () => {
    expect(ROUTES).toHaveLength(19);
    expect(PAIRS).toHaveLength(19 * KINDS.length);
  });

  it.each(PAIRS.map(([route, kind]) => [`${route.operationId} ${kind}`, route, kind] as const))('%s resolves to a failure result of the route', (_name, route, kind) => {
    const outcome = failureOutcome(route, new OperationFailure(kind, 'why'));
    expect(hasResult(route, outcome.resultName)).toBe(true);
    expect(outcome.resultName).not.toBe(route.successResult);
    const envelope = toEnvelope(route, outcome);
    expect(envelope.isResultSuccess).toBe(false);
    expect(envelope.result).toBe(route.results[outcome.resultName]);
    expect('data' in envelope).toBe(route.kind === 'data');
  });
});
