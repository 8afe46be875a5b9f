import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { toEnvelope, type Envelope, type Outcome } from '../contract/envelope';
import { ROUTES, type RouteSpec } from '../contract/routes';
import { createSchemaRegistry, type SchemaRegistry } from '../contract/schema-registry';
import { OperationFailure, type FailureKind, type Problem } from '../errors';
import { fastPathSupport } from '../expressions/fast-path/version';
import { createHttpClient, type HttpClient } from '../http/client';
import { silentLogger, type Logger } from '../log';
import { requestBodyLimit } from './body-limit';
import type { Mapping } from '../mapping/model';
import type { TraceObserver } from '../pipeline/trace';
import { createConnectionPool, type ConnectionPool } from './connections';
import { dispatch, failureOutcome, type PreparedRoute } from './dispatch';
import { readInput, type EngineRequest } from './request';
import { createRouteTable } from './routing';

/**
 * The one way a request runs. The Koa server, `dry-run`, `test`, the bench and the tests all hand a
 * request to `Engine.handle` and get the answer back; none of them reads inputs, dispatches or turns
 * failures into result numbers on its own. Everything that lives between requests (schema validators,
 * ERP connections with their tokens, caches and limits) belongs to one engine instance and is released
 * by `close()`: nothing is kept at module level.
 */

/** Milliseconds from a monotonic clock; tests inject a fake one. */
export interface Clock {
  now(): number;
}

export interface EngineDeps {
  readonly mappings: readonly Mapping[];
  /** Outbound client; tests and `dry-run --answers` inject their own. Defaults to the real keep-alive client. */
  readonly http?: HttpClient;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Contract validators; several short-lived engines (mapping tests) may share one registry. */
  readonly schemas?: SchemaRegistry;
  /** Serve each mapping under `/<name>`; the default does so when there are several. */
  readonly prefixed?: boolean;
}

export interface RunOptions {
  /** Sees every step of the request (the dry-run trace). */
  readonly observer?: TraceObserver;
}

/** What a request gave: the HTTP answer, and for a contract route what happened on the way. */
export interface EngineAnswer {
  readonly requestId: string;
  /** 200 with an envelope for every contract route; 404 or 405 with `{ error }` for anything else. */
  readonly status: number;
  readonly body: Envelope | { readonly error: string };
  readonly headers: Readonly<Record<string, string>>;
  readonly mapping?: Mapping;
  readonly route?: RouteSpec;
  readonly outcome?: Outcome;
  readonly envelope?: Envelope;
  /** Why the outcome is a failure, in the engine's words (also in validationStatus). */
  readonly failure?: { readonly kind: FailureKind; readonly message: string; readonly problems: readonly Problem[] };
  /** A fault inside the engine itself (a bug): logged, answered as the route's failure, kept for the CLI's bug report. */
  readonly fault?: unknown;
  readonly durationMs: number;
}

/** The request being served, for log lines written outside its code path (an unhandled rejection). */
export interface RequestContext {
  readonly requestId: string;
  readonly mapping?: string;
  readonly operation?: string;
  readonly method: string;
  readonly path: string;
}

export interface Engine {
  readonly mappings: readonly Mapping[];
  /** Largest request body, in bytes, that the mappings need accepted (file uploads raise it). */
  readonly bodyLimitBytes: number;
  handle(request: EngineRequest, options?: RunOptions): Promise<EngineAnswer>;
  /** The request whose code is running now, if any. */
  currentRequest(): RequestContext | undefined;
  /** Connections to ERPs held now (one per distinct `system:`). */
  readonly connectionCount: number;
  close(): Promise<void>;
}

const monotonic: Clock = { now: () => performance.now() };

/** Request ids come from callers too: keep them short and printable so they are safe in logs and headers. */
function acceptedRequestId(given: string | undefined): string {
  return given !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
}

export function createEngine(deps: EngineDeps): Engine {
  const { mappings } = deps;
  const names = mappings.map((mapping) => mapping.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new Error(`two mappings are named "${duplicate}"; each is served under /<name>, so names must differ`);
  if (mappings.length === 0) throw new Error('an engine needs at least one mapping');

  const http = deps.http ?? createHttpClient();
  const ownsHttp = deps.http === undefined;
  const log = deps.log ?? silentLogger;
  const clock = deps.clock ?? monotonic;
  const schemas = deps.schemas ?? createSchemaRegistry();
  const prefixed = deps.prefixed ?? mappings.length > 1;
  const routes = createRouteTable();
  const pool: ConnectionPool = createConnectionPool(http);
  const context = new AsyncLocalStorage<RequestContext>();
  const byPrefix = new Map(mappings.map((mapping) => [`/${encodeURIComponent(mapping.name)}`.toLowerCase(), mapping]));
  const prepared = new Map<RouteSpec, PreparedRoute>(
    ROUTES.map((route) => [route, {
      route,
      checkInput: route.inputSchema ? schemas.lazy(route.inputSchema) : undefined,
      checkData: route.dataSchema ? schemas.lazy(route.dataSchema) : undefined,
    }]),
  );
  const fastPath = fastPathSupport();
  if (!fastPath.enabled) log.warn({ jsonataVersion: fastPath.jsonataVersion }, fastPath.reason ?? 'the expression fast path is off');
  for (const mapping of mappings) {
    if (mapping.system.tls?.insecureSkipVerify) {
      log.warn({ mapping: mapping.name, setting: 'system.tls.insecureSkipVerify' }, 'TLS certificate checking toward the ERP is OFF: anyone on the network path can read and change the traffic, credentials included');
    }
  }

  /** Which mapping a path belongs to, and the contract path inside it. */
  function mappingOf(path: string): { mapping: Mapping; rest: string } | { error: string } {
    if (!prefixed) return { mapping: mappings[0], rest: path };
    const prefix = `/${path.split('/')[1] ?? ''}`;
    const mapping = byPrefix.get(prefix.toLowerCase());
    if (!mapping) return { error: `no mapping at ${prefix}; this server has ${[...byPrefix.keys()].join(', ')}` };
    return { mapping, rest: path.slice(prefix.length) || '/' };
  }

  async function run(request: EngineRequest, requestId: string, started: number, options: RunOptions): Promise<EngineAnswer> {
    const notFound = (error: string): EngineAnswer => ({ requestId, status: 404, body: { error }, headers: {}, durationMs: clock.now() - started });
    const located = mappingOf(request.path);
    if ('error' in located) return notFound(located.error);
    const { mapping } = located;
    const match = routes.match(request.method, located.rest);
    if (match.kind === 'not-found') return notFound(`no contract route ${request.method} ${request.path}`);
    if (match.kind === 'bad-path') return notFound(match.message);
    if (match.kind === 'method-not-allowed') {
      const allow = match.allowed.join(', ');
      return { requestId, status: 405, body: { error: `${request.method} is not allowed on ${request.path}; allowed: ${allow}` }, headers: { allow }, durationMs: clock.now() - started };
    }
    const { route } = match;
    const scope: RequestContext = { requestId, mapping: mapping.name, operation: route.operationId, method: request.method, path: request.path };
    return context.run(scope, async () => {
      const requestLog = log.child({ requestId, mapping: mapping.name });
      let outcome: Outcome;
      let failure: EngineAnswer['failure'];
      let fault: unknown;
      try {
        const { input, problems } = readInput(route, request, match.params);
        outcome = await dispatch(mapping, prepared.get(route) as PreparedRoute, input, problems, {
          connection: () => pool.connectionFor(mapping.system),
          observer: options.observer,
          log: requestLog,
        });
      } catch (error) {
        if (error instanceof OperationFailure) {
          failure = { kind: error.kind, message: error.message, problems: error.problems };
          outcome = failureOutcome(route, error);
          requestLog.warn({ operation: route.operationId, failure: error.kind, problems: error.problems }, error.message);
        } else {
          // One error funnel: a fault is logged with its stack, never shown to the platform.
          fault = error;
          const internal = new OperationFailure('INTERNAL', 'internal engine error; see the adapter log');
          failure = { kind: internal.kind, message: internal.message, problems: internal.problems };
          outcome = failureOutcome(route, internal);
          requestLog.error({ err: error, operation: route.operationId }, 'engine fault while serving a request');
        }
      }
      const envelope = toEnvelope(route, outcome);
      const durationMs = clock.now() - started;
      requestLog.info({ operation: route.operationId, method: route.method, path: request.path, result: outcome.resultName, ms: Math.round(durationMs) }, 'request');
      return { requestId, status: 200, body: envelope, headers: {}, mapping, route, outcome, envelope, failure, fault, durationMs };
    });
  }

  return {
    mappings,
    bodyLimitBytes: requestBodyLimit(mappings),
    async handle(request, options = {}) {
      const started = clock.now();
      const requestId = acceptedRequestId(request.requestId);
      try {
        return await run(request, requestId, started, options);
      } catch (error) {
        // Only reachable through a fault outside a route's own funnel (routing itself); no stack leaves.
        log.error({ err: error, requestId, path: request.path }, 'engine fault outside a route');
        return { requestId, status: 500, body: { error: 'internal error' }, headers: {}, fault: error, durationMs: clock.now() - started };
      }
    },
    currentRequest: () => context.getStore(),
    get connectionCount() {
      return pool.size;
    },
    async close() {
      if (ownsHttp) http.close();
    },
  };
}
