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
import { createJournal, DEFAULT_JOURNAL_SIZE, type Journal } from './journal';
import type { JournalEntry, JournalEntryWhat } from './journal-entry';
import { withEventStates } from './event-states';
import { createSecretRegistry, type SecretRegistry } from '../mapping/secret-registry';
import { outputOrigin, traceRecorder, type TraceStep } from './trace';
import { allOf, type TraceObserver } from '../pipeline/trace';
import { createConnectionPool, type ConnectionPool } from './connections';
import { dispatch, failureOutcome, type PreparedRoute } from './dispatch';
import { createErpProber, type ErpProbe } from './erp-probe';
import { createDeliverer, verdictOf, type Deliverer, type Verdict } from './delivery';
import { evaluateAt } from '../mapping/evaluate';
import type { FlowOperation, OutboxSpec, PushSpec, SystemSpec } from '../mapping/model';
import type { OutboxStore } from '../outbox/store';
import { runFlow } from '../pipeline/run-operation';
import { deliverPush } from '../pipeline/run-push';
import { addExpressionStats, type ExpressionTotals } from './expression-stats';
import { checkInbound } from './inbound-auth';
import { createMappingSet, type MappingSet } from './mapping-set';
import { NO_METER, type Meter } from './meter';
import { readInput, type EngineRequest } from './request';
import { createRouteTable } from './routing';
import { pushNameOf } from './push';
import { createPushServer, type PushBody } from './push-request';
import type { CallReport } from '../pipeline/fetch-call';
import type { SkippedRecord } from '../pipeline/skip-invalid';

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
}

export interface RunOptions {
  /** Sees every step of the request as it happens. */
  readonly observer?: TraceObserver;
  /** Return every step of the request (the dry-run trace) in the answer, even when the journal keeps none. */
  readonly trace?: boolean;
}

/** What a request gave: the HTTP answer, and for a contract route what happened on the way. */
export interface EngineAnswer {
  readonly requestId: string;
  /** 200 with an envelope for every contract route; 404 or 405 with `{ error }` for anything else. */
  readonly status: number;
  readonly body: Envelope | { readonly error: string } | PushBody;
  readonly headers: Readonly<Record<string, string>>;
  readonly mapping?: Mapping;
  readonly route?: RouteSpec;
  /** A push endpoint's request (POST /push/<name>): the push it reached, and what it came to (Accepted, Duplicate, Invalid, ...). */
  readonly push?: PushSpec;
  readonly pushResult?: string;
  readonly outcome?: Outcome;
  readonly envelope?: Envelope;
  /** Why the outcome is a failure, in the engine's words (also in validationStatus). */
  readonly failure?: { readonly kind: FailureKind; readonly message: string; readonly problems: readonly Problem[] };
  /** A fault inside the engine itself (a bug): logged, answered as the route's failure, kept for the CLI's bug report. */
  readonly fault?: unknown;
  /**
   * Records left out of a list answer (onInvalidRecord: skip), each with its number and problems; they
   * are logged and counted already. Here for whoever keeps a record of requests (a request journal).
   */
  readonly skipped?: readonly SkippedRecord[];
  /** `outbox: 'inline'` only: what the background delivery of an outbox event (or a push's events) would do. */
  readonly delivery?: { readonly verdict: Verdict['kind']; readonly message?: string };
  /** Every step of a contract request or a push, unmasked (mask with maskSteps before showing); with `trace` or a journal. */
  readonly steps?: readonly TraceStep[];
  /** The journal's entry of this request (unmasked); undefined when the journal keeps none. */
  readonly entry?: JournalEntry;
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
  const requireStore = (mappings: readonly Mapping[]) => {
    if (deps.outbox !== undefined) return;
    for (const mapping of mappings) {
      for (const operation of mapping.operations.values()) {
        if (operation.mode === 'flow' && operation.outbox) throw new Error(`mapping "${mapping.name}" delivers ${operation.route.operationId} through the outbox, but the engine has no outbox store (serve: --state-dir or DATABASE_URL)`);
      }
      if (mapping.pushes.size > 0) throw new Error(`mapping "${mapping.name}" has push endpoints, delivered through the outbox, but the engine has no outbox store (serve: --state-dir or DATABASE_URL)`);
    }
  };
  requireStore(deps.mappings);

  const http = deps.http ?? createHttpClient();
  const ownsHttp = deps.http === undefined;
  const log = deps.log ?? silentLogger;
  const clock = deps.clock ?? monotonic;
  const schemas = deps.schemas ?? createSchemaRegistry();
  const routes = createRouteTable();
  const probeErp = createErpProber(http);
  const secrets = deps.secrets ?? createSecretRegistry();
  secrets.serve(deps.mappings);
  const pool: ConnectionPool = createConnectionPool(http, (erp, ok, token) => {
    meter.tokenFetch({ erp, ok });
    // Learned before the token is first sent: an ERP echoing it back finds it masked already.
    if (token !== undefined) secrets.learn(token);
  });
  const context = new AsyncLocalStorage<RequestContext>();
  const journal = deps.journal ?? createJournal({ size: DEFAULT_JOURNAL_SIZE, log });
  // Entry ids: unique across the processes sharing a state store, and cheaper than a UUID per request.
  const journalPrefix = randomUUID().slice(0, 8);
  let journalCount = 0;
  const deliverer = store && createDeliverer({
    store,
    mappings: () => served.mappings,
    log,
    mask: secrets,
    now: wallClock,
    deliver: async (mapping, target, event, deadlineMs) => {
      const eventLog = log.child({ requestId: event.requestId, mapping: mapping.name, event: event.id });
      const onCall = (report: CallReport) => meter.erpCall({ mapping: mapping.name, call: report.call, statusClass: report.statusClass, attempts: report.attempts, seconds: report.seconds });
      const common = { log: eventLog, requestId: event.requestId, idempotencyKey: event.id, onCall };
      if (target.kind === 'push') {
        await deliverPush(target.push, event.input, { ...common, connection: pool.connectionFor(mapping.platform as SystemSpec), deadlineMs: Math.min(deadlineMs, target.push.deadlineMs ?? deadlineMs) });
        return;
      }
      const { operation } = target;
      await runFlow(operation, event.input, undefined, { ...common, connection: pool.connectionFor(mapping.system), deadlineMs: Math.min(deadlineMs, operation.deadlineMs ?? deadlineMs) });
    },
    onSettled: (event, verdict) => meter.outboxSettled({ mapping: event.mapping, kind: event.kind, operation: event.operation, verdict }),
  });

  /** Stores an outbox event; the platform's answer waits for this and only this. */
  async function accept(mapping: Mapping, operation: FlowOperation, input: unknown, requestId: string): Promise<{ id: string; orderingKey: string }> {
    if (!store) throw new Error('accept without a store');
    const spec = operation.outbox as OutboxSpec;
    let orderingKey = operation.route.operationId;
    if (spec.orderingKey) {
      const value = await evaluateAt(spec.orderingKey, { input }, `${operation.route.operationId}.outbox.orderingKey`);
      // An event without the field (the contract may allow it) is ordered with the operation's other keyless events.
      if (value !== undefined && value !== null && value !== '') orderingKey = typeof value === 'string' ? value : JSON.stringify(value);
    }
    const id = randomUUID();
    try {
      await store.enqueue({ id, mapping: mapping.name, operation: operation.route.operationId, orderingKey, input, requestId, acceptedAt: wallClock(), blocksKeyWhenDead: spec.onDeadLetter === 'block' });
    } catch (error) {
      log.error({ err: error, requestId, store: store.location }, 'the outbox could not store an event; the platform is told it failed');
      throw new OperationFailure('EVENT_NOT_STORED', 'the event could not be stored for delivery; send it again', [{ path: '', message: 'the outbox store is not available' }]);
    }
    deliverer?.wake();
    return { id, orderingKey };
  }
  const pushes = createPushServer({
    store, checkAuth: checkInboundAuth, now: wallClock, log, meter, connection: (system) => pool.connectionFor(system), stored: () => deliverer?.wake(),
  });
  const prepared = new Map<RouteSpec, PreparedRoute>(
    ROUTES.map((route) => [route, {
      route,
      checkInput: route.inputSchema ? schemas.lazy(route.inputSchema) : undefined,
      checkData: route.dataSchema ? schemas.lazy(route.dataSchema) : undefined,
    }]),
  );
  const fastPath = fastPathSupport();
  if (!fastPath.enabled) log.warn({ jsonataVersion: fastPath.jsonataVersion }, fastPath.reason ?? 'the expression fast path is off');
  const warnInsecure = (mappings: readonly Mapping[]) => {
    for (const mapping of mappings) {
      if (mapping.system.tls?.insecureSkipVerify) {
        log.warn({ mapping: mapping.name, setting: 'system.tls.insecureSkipVerify' }, 'TLS certificate checking toward the ERP is OFF: anyone on the network path can read and change the traffic, credentials included');
      }
      if (mapping.platform?.tls?.insecureSkipVerify) {
        log.warn({ mapping: mapping.name, setting: 'platform.tls.insecureSkipVerify' }, 'TLS certificate checking toward the platform is OFF: anyone on the network path can read and change the traffic, credentials included');
      }
    }
  };
  warnInsecure(deps.mappings);

  /** Keeps a served request (a contract route's or a push's) in the journal, when it keeps any. */
  function keep(mapping: Mapping, requestId: string, startedAt: number, durationMs: number, steps: TraceStep[], what: JournalEntryWhat): JournalEntry | undefined {
    if (journal.size === 0) return undefined;
    const entry: JournalEntry = {
      id: `${journalPrefix}-${(journalCount += 1)}`,
      requestId, at: new Date(startedAt).toISOString(), mapping: mapping.name, file: mapping.file,
      ...what,
      steps,
      rulesMatched: steps.flatMap((step) => (step.step === 'rule' && step.matched ? [{ call: step.call, when: step.when, result: step.result, at: step.at }] : [])),
      durationMs: Math.round(durationMs * 10) / 10,
    };
    journal.add(entry, secrets);
    return entry;
  }

  /** The platform's credentials (inbound.auth), from the headers: the 401 answer when they are not accepted. */
  function inboundRefusal(mapping: Mapping, request: EngineRequest, requestId: string, started: number): EngineAnswer | undefined {
    if (!checkInboundAuth) return undefined;
    const verdict = checkInbound(mapping.inbound.auth, request.headers ?? {}, `adapter-engine/${mapping.name}`);
    if (verdict.ok) return undefined;
    // Logged and counted without the credential: only which header was missing or wrong.
    meter.refused({ mapping: mapping.name, reason: verdict.reason });
    log.warn({ requestId, mapping: mapping.name, method: request.method, path: request.path, reason: verdict.reason }, `request refused: ${verdict.message}`);
    return { requestId, status: 401, body: { error: `authentication required: ${verdict.message}` }, headers: { 'x-request-id': requestId, 'www-authenticate': verdict.challenge }, mapping, durationMs: clock.now() - started };
  }

  async function run(request: EngineRequest, requestId: string, started: number, startedAt: number, options: RunOptions): Promise<EngineAnswer> {
    const seconds = () => (clock.now() - started) / 1000;
    const idHeader = { 'x-request-id': requestId };
    const notFound = (error: string, mapping = ''): EngineAnswer => {
      // Every request gets its one line at info, also one that is no contract route.
      log.info({ requestId, ...(mapping ? { mapping } : {}), method: request.method, path: request.path, result: 'NotFound', ms: Math.round(clock.now() - started) }, 'request');
      meter.request({ mapping, operation: '', result: 'NotFound', seconds: seconds() });
      return { requestId, status: 404, body: { error }, headers: idHeader, durationMs: clock.now() - started };
    };
    const located = served.locate(request.path);
    if ('error' in located) return notFound(located.error);
    const { mapping } = located;
    const pushName = pushNameOf(located.rest);
    if (pushName !== undefined) {
      // The ERP's door: the push's own credentials, not the platform's (inbound.auth); traced and journaled as a contract request is.
      const steps: TraceStep[] | undefined = options.trace || journal.size > 0 ? [] : undefined;
      const recorder = steps && traceRecorder(mapping.platform?.baseUrl ?? mapping.system.baseUrl, undefined, steps);
      const scope: RequestContext = { requestId, mapping: mapping.name, operation: `push/${pushName}`, method: request.method, path: request.path };
      const pushed = await context.run(scope, () => pushes.serve(mapping, pushName, request, requestId, seconds, allOf(options.observer, recorder)));
      const durationMs = clock.now() - started;
      if (pushed.delivery && steps) steps.push({ step: 'delivery', verdict: pushed.delivery.verdict, message: pushed.delivery.message });
      // A push that did not reach its checks (unknown, refused, not a POST) is kept out, as such contract requests are.
      const entry = steps && pushed.push && pushed.result !== 'Refused' && pushed.result !== 'MethodNotAllowed' ? keep(mapping, requestId, startedAt, durationMs, steps, {
        operation: scope.operation as string, route: `POST /push/${pushName}`, mode: 'push',
        request: { method: request.method, path: request.path, query: request.query, body: pushed.input },
        result: pushed.result, success: pushed.status === 202,
        failure: 'error' in pushed.body ? { kind: pushed.result, message: pushed.body.error } : undefined,
        answer: { status: pushed.status, body: pushed.body },
      }) : undefined;
      return { requestId, status: pushed.status, body: pushed.body, headers: pushed.headers, mapping, push: pushed.push, pushResult: pushed.result, delivery: pushed.delivery, steps, entry, durationMs };
    }
    const refused = inboundRefusal(mapping, request, requestId, started);
    if (refused) return refused;
    const match = routes.match(request.method, located.rest);
    if (match.kind === 'not-found') return notFound(`no contract route ${request.method} ${request.path}`, mapping.name);
    if (match.kind === 'bad-path') return notFound(match.message, mapping.name);
    if (match.kind === 'method-not-allowed') {
      const allow = match.allowed.join(', ');
      log.info({ requestId, mapping: mapping.name, method: request.method, path: request.path, result: 'MethodNotAllowed', ms: Math.round(clock.now() - started) }, 'request');
      meter.request({ mapping: mapping.name, operation: '', result: 'MethodNotAllowed', seconds: seconds() });
      return { requestId, status: 405, body: { error: `${request.method} is not allowed on ${request.path}; allowed: ${allow}` }, headers: { ...idHeader, allow }, durationMs: clock.now() - started };
    }
    const { route } = match;
    const scope: RequestContext = { requestId, mapping: mapping.name, operation: route.operationId, method: request.method, path: request.path };
    const onCall = (report: CallReport) => {
      if (report.cache) meter.cache({ mapping: mapping.name, call: report.call, hit: report.cache === 'hit' });
      // A cache hit is not a call to the ERP.
      if (report.cache !== 'hit') meter.erpCall({ mapping: mapping.name, call: report.call, statusClass: report.statusClass, attempts: report.attempts, seconds: report.seconds });
    };
    const steps: TraceStep[] | undefined = options.trace || journal.size > 0 ? [] : undefined;
    return context.run(scope, async () => {
      const requestLog = log.child({ requestId, mapping: mapping.name });
      let outcome: Outcome;
      let failure: EngineAnswer['failure'];
      let fault: unknown;
      let delivery: EngineAnswer['delivery'];
      const skipped: SkippedRecord[] = [];
      try {
        const { input, problems } = readInput(route, request, match.params);
        outcome = await dispatch(mapping, prepared.get(route) as PreparedRoute, input, problems, {
          connection: () => pool.connectionFor(mapping.system),
          observer: allOf(options.observer, steps && traceRecorder(mapping.system.baseUrl, outputOrigin(mapping, route), steps)),
          log: requestLog,
          requestId,
          onCall,
          onSkipped: (record) => {
            skipped.push(record);
            meter.recordSkipped({ mapping: mapping.name, operation: route.operationId });
          },
          abandoned: request.signal,
          accept: store ? (operation, input) => accept(mapping, operation, input, requestId) : undefined,
          delivered: (error) => {
            const verdict = error === undefined ? 'delivered' : verdictOf(error).kind;
            delivery = { verdict, message: error instanceof Error ? error.message : undefined };
          },
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
      if (delivery && steps) steps.push({ step: 'delivery', verdict: delivery.verdict, message: delivery.message });
      const entry = steps && keep(mapping, requestId, startedAt, durationMs, steps, {
        operation: route.operationId, route: `${route.method} ${route.path}`, mode: mapping.operations.get(route.operationId)?.mode ?? 'unmapped',
        request: { method: request.method, path: request.path, query: request.query, body: request.body, params: route.inputSource === 'path' ? match.params : undefined },
        result: outcome.resultName, success: envelope.isResultSuccess,
        failure: failure && { kind: failure.kind, message: failure.message },
        envelope,
      });
      requestLog.info({ operation: route.operationId, method: route.method, path: request.path, result: outcome.resultName, ms: Math.round(durationMs) }, 'request');
      meter.request({ mapping: mapping.name, operation: route.operationId, result: outcome.resultName, seconds: durationMs / 1000 });
      return { requestId, status: 200, body: envelope, headers: idHeader, mapping, route, outcome, envelope, failure, fault, delivery, steps, entry, ...(skipped.length > 0 ? { skipped } : {}), durationMs };
    });
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
      requireStore(mappings);
      warnInsecure(mappings.filter((mapping) => !served.mappings.includes(mapping)));
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
      const started = clock.now();
      const startedAt = wallClock();
      const requestId = acceptedRequestId(request.requestId);
      meter.inFlight(1);
      try {
        return await run(request, requestId, started, startedAt, options);
      } catch (error) {
        // Only reachable through a fault outside a route's own funnel (routing itself); no stack leaves.
        log.error({ err: error, requestId, path: request.path }, 'engine fault outside a route');
        return { requestId, status: 500, body: { error: 'internal error' }, headers: { 'x-request-id': requestId }, fault: error, durationMs: clock.now() - started };
      } finally {
        meter.inFlight(-1);
      }
    },
    refuse(request) {
      const started = clock.now();
      const located = served.locate(request.path);
      if ('error' in located) return undefined;
      const { mapping } = located;
      const requestId = acceptedRequestId(request.requestId);
      const pushName = pushNameOf(located.rest);
      if (pushName === undefined) return inboundRefusal(mapping, request, requestId, started);
      const pushed = pushes.refuseEarly(mapping, pushName, request, requestId, () => (clock.now() - started) / 1000);
      return pushed && { requestId, status: pushed.status, body: pushed.body, headers: pushed.headers, mapping, push: pushed.push, pushResult: pushed.result, durationMs: clock.now() - started };
    },
    isPushPath(path) {
      const located = served.locate(path);
      return !('error' in located) && pushNameOf(located.rest) !== undefined;
    },
    currentRequest: () => context.getStore(),
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
    },
  };
}
