import { tooDeep } from '../contract/body-depth';
import type { RouteSpec } from '../contract/routes';
import type { Problem } from '../errors';

/**
 * A platform request as the engine takes it, free of HTTP framework types: whoever receives it (the Koa
 * server, `dry-run`, `test`, the bench) hands over the same fields, so every caller runs the same path.
 */
export interface EngineRequest {
  readonly method: string;
  /** The request path, `/<mapping>` first when the engine serves several mappings; percent-encoded as sent. */
  readonly path: string;
  /** Query parameters as an HTTP framework hands them over: text, or a list of texts for a repeated name. */
  readonly query?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The parsed JSON body; `undefined` when there was none. */
  readonly body?: unknown;
  /** The body's bytes as they came, kept for push endpoints only (a signature covers them); contract routes get `body`. */
  readonly rawBody?: Buffer;
  /** Why the body could not be read (not JSON, too large); the route answers its input failure. */
  readonly bodyError?: BodyError;
  /** The caller's request id (`X-Request-Id`); the engine makes one when absent. */
  readonly requestId?: string;
  /** Request headers with lower-cased names, as Node hands them over; read for the inbound credentials. */
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Aborted when the caller has gone (the platform closed the connection): the engine makes no further ERP call for it. */
  readonly signal?: AbortSignal;
}

export interface BodyError {
  /** not-json: a content type other than JSON; the body was not read. */
  readonly kind: 'too-large' | 'malformed' | 'not-json';
  readonly message: string;
}


/**
 * Collects a route's input from where the contract puts it. Query names match case-insensitively, as
 * the platform's own web framework does, and are handed to the mapping in the contract's spelling.
 */
export function readInput(route: RouteSpec, request: EngineRequest, params: Readonly<Record<string, string>>, undecodable: readonly string[] = []): { input: unknown; problems: Problem[] } {
  switch (route.inputSource) {
    case 'none':
      return { input: {}, problems: [] };
    case 'query': {
      const input: Record<string, unknown> = {};
      const canonical = new Map(route.params.map((name) => [name.toLowerCase(), name]));
      // `Code=A&code=B` names one parameter twice (names match case-insensitively): which one counts
      // would be an accident of ordering, so it is refused, as a repeated `Code=A&Code=B` is.
      const spellings = new Map<string, string[]>();
      for (const [name, value] of Object.entries(request.query ?? {})) {
        if (value === undefined) continue;
        const key = canonical.get(name.toLowerCase()) ?? name;
        input[key] = value;
        spellings.set(key, [...(spellings.get(key) ?? []), name]);
      }
      const problems: Problem[] = [];
      for (const [key, names] of spellings) {
        if (names.length > 1) problems.push({ path: `query/${key}`, message: `is given more than once (${names.join(', ')}); send it once` });
      }
      return { input, problems };
    }
    case 'path':
      return {
        input: Object.fromEntries(route.params.map((name) => [name, params[name]])),
        problems: undecodable.map((name) => ({ path: `path/${name}`, message: `"${params[name]}" is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)` })),
      };
    case 'body': {
      if (request.bodyError) {
        const message = request.bodyError.kind === 'too-large'
          ? 'the request body is larger than the engine accepts'
          : `the request body is not valid JSON: ${request.bodyError.message}`;
        return { input: undefined, problems: [{ path: 'body', message }] };
      }
      if (request.body === undefined) return { input: undefined, problems: [{ path: 'body', message: 'the request body is empty; a JSON body is expected' }] };
      const deep = tooDeep(request.body, 'the request body');
      return deep ? { input: undefined, problems: [deep] } : { input: request.body, problems: [] };
    }
  }
}

/**
 * The request the platform would send for an operation given its input as an object: what `dry-run`
 * and mapping tests run, so they go through routing and input reading exactly as a served request.
 * Query and path values become text, as they are on the wire.
 */
export function requestFor(route: RouteSpec, input: unknown, prefix = ''): EngineRequest | { problem: Problem } {
  if (route.inputSource === 'body') return { method: route.method, path: prefix + route.path, body: input };
  if (route.inputSource === 'none') return { method: route.method, path: prefix + route.path };
  if (input === undefined || input === null) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) return { problem: { path: route.inputSource, message: 'expected parameters as an object of name: value' } };
  const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value));
  const values = input as Record<string, unknown>;
  if (route.inputSource === 'path') {
    const missing = route.params.filter((name) => values[name] === undefined || text(values[name]) === '');
    if (missing.length > 0) return { problem: { path: `path/${missing[0]}`, message: 'is required' } };
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(text(values[name])));
    return { method: route.method, path: prefix + path };
  }
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) query[name] = Array.isArray(value) ? value.map(text) : text(value);
  }
  return { method: route.method, path: prefix + route.path, query };
}
