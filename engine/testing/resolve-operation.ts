import { ROUTES, type RouteSpec } from '../contract/routes';

/**
 * The operation argument of `dry-run` and of test cases: an operation id (`GetWorkOrderByCode`), a
 * route as the contract writes it (`GET /WorkOrders/Code`, `GET /Items/{number}`), or a concrete
 * request line copied from a log (`GET /Items/A-100`, `GET /WorkOrders/Code?Code=SO-1`), whose path
 * and query values become the input.
 */
export interface ResolvedOperation {
  readonly route: RouteSpec;
  /** Input read from a concrete path or query string, when the argument carried one. */
  readonly input?: Record<string, string>;
}

const REQUEST_LINE = /^(?:(GET|POST)\s+)?(\/[^\s?]*)(?:\?(\S*))?$/i;

function templateMatch(route: RouteSpec, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const found = new RegExp(`^${pattern}/?$`, 'i').exec(path);
  if (!found) return undefined;
  try {
    return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(found[index + 1])]));
  } catch {
    return undefined;
  }
}

export function resolveOperation(argument: string): ResolvedOperation | undefined {
  const text = argument.trim();
  const byId = ROUTES.find((route) => route.operationId.toLowerCase() === text.toLowerCase());
  if (byId) return { route: byId };
  const line = REQUEST_LINE.exec(text);
  if (!line) return undefined;
  const method = line[1]?.toUpperCase();
  const path = line[2];
  const candidates = ROUTES.filter((route) => !method || route.method === method);
  // The contract's own spelling first, so `GET /Items/IntegrateImage/{number}` never reads as an item number.
  const literal = candidates.filter((route) => route.path.toLowerCase() === path.toLowerCase());
  const matched = literal.length > 0
    ? literal.map((route) => ({ route, params: {} as Record<string, string> }))
    : candidates.flatMap((route) => {
      const params = templateMatch(route, path);
      return params ? [{ route, params }] : [];
    }).sort((a, b) => Object.keys(a.params).length - Object.keys(b.params).length);
  if (matched.length === 0 || (!method && matched.length > 1 && literal.length !== 1)) return undefined;
  const { route, params } = matched[0];
  const query: Record<string, string> = {};
  if (line[3]) {
    const canonical = new Map(route.params.map((name) => [name.toLowerCase(), name]));
    for (const [name, value] of new URLSearchParams(line[3])) query[canonical.get(name.toLowerCase()) ?? name] = value;
  }
  const input = { ...params, ...query };
  return Object.keys(input).length > 0 ? { route, input } : { route };
}
