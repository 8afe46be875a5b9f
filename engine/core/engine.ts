import { randomUUID } from 'node:crypto';
import { ROUTES, type RouteSpec } from '../contract/routes';
import { createSchemaRegistry, type SchemaRegistry } from '../contract/schema-registry';
import type { Deliverer } from '../delivery/delivery';
import { withEventStates } from '../delivery/event-states';
import { codegenSupport } from '../expressions/fast-path/codegen';
import { fastPathSupport } from '../expressions/fast-path/version';
import { createHttpClient, type HttpClient } from '../http/client';
import { createJournal, DEFAULT_JOURNAL_SIZE, type Journal } from '../journal/journal';
import type { JournalEntry } from '../journal/journal-entry';
import type { DriftWatch } from '../drift/watch';
import { silentLogger, type Logger } from '../log';
import { createSecretRegistry, type SecretRegistry } from '../mapping/secret-registry';
import type { Mapping } from '../mapping/model';
import { createErpProber, type ErpProbe } from '../metrics/erp-probe';
import { addExpressionStats, type ExpressionTotals } from '../metrics/expression-stats';
import { NO_METER, type Meter } from '../metrics/meter';
import type { OutboxStore } from '../outbox/store';
import { pushNameOf } from '../pushes/push';
import { createPushServer } from '../pushes/push-request';
import { continueTrace } from '../trace/context';
import type { Tracing } from '../trace/spans';
import { createAcceptor } from './accept';
import { authenticate } from './authenticate';
import { requestBodyLimit } from './body-limit';
import { createConnectionPool } from './connections';
import { serveContractRoute } from './contract-request';
import { startDeliverer } from './deliverer';
import type { PreparedRoute } from './dispatch';
import { createKeeper } from './keep';
import { createMappingSet, type MappingSet } from './mapping-set';
import { requireStore, warnInsecure } from './mapping-checks';
import type { EngineRequest } from './request';
import { createRouteTable } from './routing';
import { matchContractRoute } from './route';
import { notFound, secondsSince } from './answer';
import { servePushRequest } from './serve-push';
import { endRequestSpan, traceRequest } from './request-span';
import { requestContexts } from './request-context';
import type { Clock, EngineAnswer, EngineParts, RequestContext, RunOptions, Served } from './stage';

/**
 * The one way a request runs. The Koa server, `dry-run`, `test`, the bench and the tests all hand a
 * request to `Engine.handle` and get the answer back; none of them reads inputs, dispatches or turns
 * failures into result numbers on its own. Everything that lives between requests (schema validators,
 * ERP connections with their tokens, caches and limits) belongs to one engine instance and is released
 * by `close()`: nothing is kept at module level.
 */

export interface EngineDeps {
  readonly mappings: readonly Mapping[];
  /** Outbound client; tests and `dry-run --answers` inject their own. Defaults to the real keep-alive client. */
  readonly http?: HttpClient;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Wall-clock milliseconds since the epoch (outbox acceptance times, retry times); tests move it. */
  readonly now?: () => number;
  /** Contract validators; several short-lived engines (mapping tests) may share one registry. */
  readonly schemas?: SchemaRegistry;
  /** Serve each mapping under `/<name>`; the default does so when there are several. Fixed for the engine's life. */
  readonly prefixed?: boolean;
  /** Where requests, ERP calls, cache lookups and token fetches are counted. */
  readonly meter?: Meter;
  /**
   * Where events of `delivery: outbox` operations are stored before the platform is answered. `inline`
   * (dry-run, test, tests of mappings) delivers them while the request runs, answers what the platform
   * would get and reports the delivery in the answer. Without either, such a mapping is refused.
   */
  readonly outbox?: OutboxStore | 'inline';
  /**
   * Whether the mappings' `inbound.auth` is enforced. Off only for callers inside the process that act for
   * the person running them (dry-run, test), who hold the mapping file and its secrets anyway.
   */
  readonly checkInboundAuth?: boolean;
  /**
   * Where the engine keeps the requests it served (the request journal); by default the last
   * DEFAULT_JOURNAL_SIZE per mapping in memory. close() closes it.
   */
  readonly journal?: Journal;
  /**
   * The secret values to mask in what the engine keeps and shows (journal, outbox answers) and in the log
   * made with it (createLogger's `secrets`); the engine adds its mappings' and the OAuth2 tokens it fetches.
   */
  readonly secrets?: SecretRegistry;
  /**
   * Where spans go when OTEL_* asks for export (trace/from-env.ts); close() shuts it down. Without it the
   * trace context is still continued onto every ERP call.
   */
  readonly tracing?: Tracing;
  /** Checks the ERP's live answers against the shapes the mappings' recorded answers taught (ERP drift); the caller teaches it. */
  readonly drift?: DriftWatch;
}

export interface Engine {
  /** The mappings served now; a reload replaces them. */
  readonly mappings: readonly Mapping[];
  /** Whether each mapping is served under `/<name>`. */
  readonly prefixed: boolean;
  /** Largest request body, in bytes, that the mappings need accepted (file uploads raise it). */
  readonly bodyLimitBytes: number;
  /**
   * Serves `mappings` from the next request on; requests in flight finish on the mappings they started
   * with. ERP connections of an unchanged `system:` (tokens, caches, limits) are kept, others dropped.
   * Throws, changing nothing, when two mappings share a name.
   */
  replaceMappings(mappings: readonly Mapping[]): void;
  /** How the expressions of every mapping served so far ran. */
  expressionStats(): ExpressionTotals;
  /** Asks the mapping's ERP at system.healthCheck (undefined when it declares none). */
  probeErp(mapping: Mapping): Promise<ErpProbe | undefined>;
  /** Background delivery of the outbox's events; undefined without a store. close() stops it. */
  readonly deliverer?: Deliverer;
  handle(request: EngineRequest, options?: RunOptions): Promise<EngineAnswer>;
  /**
   * The 401 answer (logged and counted) of a request whose headers alone show that its credentials are
   * not accepted; undefined when they are, or when only its body can tell (a push's signature). The
   * server asks before it reads a body, so an unauthenticated request never costs a body's memory;
   * handle() checks again, whoever calls it.
   */
  refuse(request: EngineRequest): EngineAnswer | undefined;
  /** Whether the path is a push endpoint's, whose raw body the server keeps (a signature covers the bytes). */
  isPushPath(path: string): boolean;
  /** The request whose code is running now, if any. */
  currentRequest(): RequestContext | undefined;
  /** Connections to ERPs held now (one per distinct `system:`). */
  readonly connectionCount: number;
  /** The requests served lately (see journal.ts). */
  readonly journal: Journal;
  /** A journal entry, masked, with where each outbox event it stored stands now (the admin's /requests/{id}). */
  describeRequest(id: string): Promise<JournalEntry | undefined>;
  close(): Promise<void>;
}

const monotonic: Clock = { now: () => performance.now() };

/** Request ids come from callers too: keep them short and printable so they are safe in logs and headers. */
function acceptedRequestId(given: string | undefined): string {
  return given !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** The contract's routes with their validators, built once per engine (compiled on first use). */
function prepareRoutes(schemas: SchemaRegistry): Map<RouteSpec, PreparedRoute> {
  return new Map(ROUTES.map((route) => [route, {
    route,
    checkInput: route.inputSchema ? schemas.lazy(route.inputSchema) : undefined,
    checkData: route.dataSchema ? schemas.lazy(route.dataSchema) : undefined,
  }]));
}

/**
 * Wires the stages of a request once: route (mapping-set.ts, route.ts) → authenticate (authenticate.ts)
 * → read input and run the operation (run-route.ts) or the push (serve-push.ts) → journal (keep.ts) →
 * answer (contract-request.ts, answer.ts). Everything a stage needs between requests is built here.
 */
export function createEngine(deps: EngineDeps): Engine {
  if (deps.mappings.length === 0) throw new Error('an engine needs at least one mapping');
  const prefixed = deps.prefixed ?? deps.mappings.length > 1;
  let served: MappingSet = createMappingSet(deps.mappings, prefixed);
  let bodyLimitBytes = requestBodyLimit(deps.mappings);
  /** Expression runs of mappings replaced by a reload, so the totals never go backwards. */
  const retired: ExpressionTotals = { fast: 0, fallback: 0, interpreter: 0 };
  const meter = deps.meter ?? NO_METER;
  const checkInboundAuth = deps.checkInboundAuth ?? true;
  const store = deps.outbox === 'inline' ? undefined : deps.outbox;
  const wallClock = deps.now ?? Date.now;
  requireStore(deps.outbox !== undefined, deps.mappings);

  const http = deps.http ?? createHttpClient();
  const ownsHttp = deps.http === undefined;
  const log = deps.log ?? silentLogger;
  const journal = deps.journal ?? createJournal({ size: DEFAULT_JOURNAL_SIZE, log });
  const secrets = deps.secrets ?? createSecretRegistry();
  secrets.serve(deps.mappings);
  const parts: EngineParts = { log, meter, clock: deps.clock ?? monotonic, journal, store, context: requestContexts, drift: deps.drift, mask: secrets };
  const routes = createRouteTable();
  const probeErp = createErpProber(http);
  const pool = createConnectionPool(http, (erp, ok, token) => {
    meter.tokenFetch({ erp, ok });
    // Learned before the token is first sent: an ERP echoing it back finds it masked already.
    if (token !== undefined) secrets.learn(token);
  });
  const keep = createKeeper(journal, secrets);
  const deliverer = store && startDeliverer({ store, mappings: () => served.mappings, log, mask: secrets, meter, now: wallClock, pool, tracing: deps.tracing });
  const wake = () => deliverer?.wake();
  const accept = store && deliverer && createAcceptor(store, log, wallClock, wake, deliverer.tryFirst);
  const pushes = createPushServer({ store, checkAuth: checkInboundAuth, now: wallClock, log, meter, connection: (system) => pool.connectionFor(system), stored: wake });
  const prepared = prepareRoutes(deps.schemas ?? createSchemaRegistry());
  const fastPath = fastPathSupport();
  if (!fastPath.enabled) log.warn({ jsonataVersion: fastPath.jsonataVersion }, fastPath.reason ?? 'the expression fast path is off');
  const codegen = codegenSupport();
  if (!codegen.enabled) log.warn(codegen.reason);
  warnInsecure(log, deps.mappings);

  async function run(request: Served): Promise<EngineAnswer> {
    const located = served.locate(request.request.path);
    if ('error' in located) return notFound(parts, request, located.error);
    const { mapping } = located;
    const pushName = pushNameOf(located.rest);
    if (pushName !== undefined) return servePushRequest(parts, request, mapping, pushName, pushes.serve, keep);
    const refused = checkInboundAuth ? authenticate(parts, request, mapping) : undefined;
    if (refused) return refused;
    const match = matchContractRoute(routes, parts, request, mapping, located.rest);
    if (!('kind' in match)) return match;
    return serveContractRoute(parts, request, mapping, match.route, match.params, keep, { prepared: prepared.get(match.route) as PreparedRoute, pool, accept, undecodable: match.undecodable });
  }

  return {
    get mappings() {
      return served.mappings;
    },
    prefixed,
    get bodyLimitBytes() {
      return bodyLimitBytes;
    },
    replaceMappings(mappings) {
      const next = createMappingSet(mappings, prefixed);
      requireStore(deps.outbox !== undefined, mappings);
      warnInsecure(log, mappings.filter((mapping) => !served.mappings.includes(mapping)));
      addExpressionStats(served.mappings.filter((mapping) => !mappings.includes(mapping)), retired);
      served = next;
      secrets.serve(mappings);
      bodyLimitBytes = requestBodyLimit(mappings);
      pool.keepOnly(mappings.flatMap((mapping) => (mapping.platform ? [mapping.system, mapping.platform] : [mapping.system])));
    },
    expressionStats: () => addExpressionStats(served.mappings, { ...retired }),
    probeErp,
    deliverer,
    async handle(request, options = {}) {
      const started = parts.clock.now();
      const requestId = acceptedRequestId(request.requestId);
      meter.inFlight(1);
      const traced = traceRequest(request, deps.tracing, secrets);
      try {
        const answer = await run({ request, requestId, started, startedAt: wallClock(), options, ...traced });
        endRequestSpan(traced.span, request, answer);
        return answer;
      } catch (error) {
        traced.span?.end({}, 'INTERNAL');
        // Only reachable through a fault outside a route's own funnel (routing itself); no stack leaves.
        log.error({ err: error, requestId, path: request.path }, 'engine fault outside a route');
        return { requestId, status: 500, body: { error: 'internal error' }, headers: { 'x-request-id': requestId }, fault: error, durationMs: parts.clock.now() - started };
      } finally {
        meter.inFlight(-1);
      }
    },
    refuse(request) {
      const located = served.locate(request.path);
      if ('error' in located) return undefined;
      const { mapping } = located;
      const pushName = pushNameOf(located.rest);
      // A mapping open to every caller refuses nobody: no request id or trace is drawn for the request it lets in.
      if (pushName === undefined && (!checkInboundAuth || mapping.inbound.auth.type === 'none')) return undefined;
      const started = parts.clock.now();
      const asked: Served = { request, requestId: acceptedRequestId(request.requestId), started, startedAt: wallClock(), options: {}, trace: continueTrace(undefined) };
      if (pushName === undefined) return authenticate(parts, asked, mapping);
      const pushed = pushes.refuseEarly(mapping, pushName, request, asked.requestId, () => secondsSince(parts, asked));
      return pushed && { requestId: asked.requestId, status: pushed.status, body: pushed.body, headers: pushed.headers, mapping, push: pushed.push, pushResult: pushed.result, durationMs: parts.clock.now() - started };
    },
    isPushPath(path) {
      const located = served.locate(path);
      return !('error' in located) && pushNameOf(located.rest) !== undefined;
    },
    currentRequest: () => parts.context.getStore(),
    get connectionCount() {
      return pool.size;
    },
    journal,
    async describeRequest(id) {
      const entry = await journal.get(id);
      if (!entry || !store) return entry;
      return withEventStates(entry, store, secrets);
    },
    async close() {
      await deliverer?.stop();
      await journal.close();
      if (ownsHttp) http.close();
      await deps.tracing?.shutdown();
    },
  };
}
