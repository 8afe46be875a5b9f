import type { Problem } from '../errors';
import { resultNumber, type RouteSpec } from './routes';

/** The one response shape of the contract. `data` is absent on event routes. */
export interface Envelope {
  isResultSuccess: boolean;
  result: number;
  validationStatus: readonly Problem[] | null;
  externalMessage: string | null;
  data?: unknown;
}

export interface Outcome {
  readonly resultName: string;
  readonly data?: unknown;
  readonly problems?: readonly Problem[];
  readonly externalMessage?: string | null;
}

/** The engine owns the numbers: a result name becomes the number of *this* route, and success agrees. */
export function toEnvelope(route: RouteSpec, outcome: Outcome): Envelope {
  const result = resultNumber(route, outcome.resultName);
  const envelope: Envelope = {
    isResultSuccess: outcome.resultName === route.successResult,
    result,
    // Path and message only: where in the mapping a value was made is for the integrator, not the platform.
    validationStatus: outcome.problems && outcome.problems.length > 0 ? outcome.problems.map(({ path, message }) => ({ path, message })) : null,
    externalMessage: outcome.externalMessage ?? null,
  };
  if (route.kind === 'data') envelope.data = outcome.data ?? null;
  return envelope;
}
