import { ROUTES, type RouteSpec } from '../contract/routes';

/**
 * Which contract route a method and path name. The contract has 19 fixed routes, so a list of compiled
 * patterns is all the router there needs to be; Koa's router is not used so that `dry-run`, `test` and
 * the server resolve a request the same way.
 */
export type RouteMatch =
  | {
    readonly kind: 'route';
    readonly route: RouteSpec;
    readonly params: Readonly<Record<string, string>>;
    /**
     * Path parameters that are not valid percent-encoding (`/Items/%E0%A4%A`), kept as sent: the route
     * still answers its envelope, with the input failure naming the parameter.
     */
    readonly undecodable?: readonly string[];
  }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'method-not-allowed'; readonly allowed: readonly string[] };

interface CompiledRoute {
  readonly route: RouteSpec;
  readonly pattern: RegExp;
}

export interface RouteTable {
  match(method: string, path: string): RouteMatch;
}

export function createRouteTable(routes: readonly RouteSpec[] = ROUTES): RouteTable {
  const compiled: CompiledRoute[] = routes.map((route) => ({
    route,
    // A placeholder is one non-empty path segment; everything else matches literally, case-insensitively
    // as the platform's own framework routes.
    pattern: new RegExp(`^${route.path.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('([^/]+)')}/?$`, 'i'),
  }));
  return {
    match(method, path) {
      const upper = method.toUpperCase();
      const allowed: string[] = [];
      for (const { route, pattern } of compiled) {
        const found = pattern.exec(path);
        if (!found) continue;
        if (route.method !== upper && !(upper === 'HEAD' && route.method === 'GET')) {
          allowed.push(route.method);
          continue;
        }
        const params: Record<string, string> = {};
        const undecodable: string[] = [];
        route.params.forEach((name, index) => {
          const sent = found[index + 1];
          try {
            params[name] = decodeURIComponent(sent);
          } catch {
            params[name] = sent;
            undecodable.push(name);
          }
        });
        return undecodable.length > 0 ? { kind: 'route', route, params, undecodable } : { kind: 'route', route, params };
      }
      return allowed.length > 0 ? { kind: 'method-not-allowed', allowed: [...new Set(allowed)] } : { kind: 'not-found' };
    },
  };
}
