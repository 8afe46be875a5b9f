import type { Mapping } from '../mapping/model';
import { methodNotAllowed, notFound } from './answer';
import type { RouteTable, RouteMatch } from './routing';
import type { EngineAnswer, EngineParts, Served } from './stage';

/** The route stage's second half, after authentication: the contract route at the path under the mapping, or the answer why none. */
export function matchContractRoute(routes: RouteTable, parts: EngineParts, served: Served, mapping: Mapping, rest: string): Extract<RouteMatch, { kind: 'route' }> | EngineAnswer {
  const match = routes.match(served.request.method, rest);
  if (match.kind === 'not-found') return notFound(parts, served, `no contract route ${served.request.method} ${served.request.path}`, mapping.name);
  if (match.kind === 'method-not-allowed') return methodNotAllowed(parts, served, mapping.name, match.allowed);
  return match;
}
