import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JournalStats } from '../journal/journal';
import type { ExpressionTotals } from '../metrics/expression-stats';
import type { Meter } from '../metrics/meter';
import { EVENT_KINDS, type KindStats, type OutboxStats } from '../outbox/store';

/**
 * The engine's metrics in the Prometheus text format. One registry per server (never prom-client's
 * global one), so tests and several engines in one process do not share counters. The names are the
 * operator's interface (alerts and dashboards use them): docs/operations.md lists them; keep them.
 *
 * With --workers the primary merges the workers' registries (prom-client's AggregatorRegistry), by each
 * metric's `aggregator`: what each worker counts or serves adds up (the default, sum), but what every
 * worker reads from one place, or has done each for the whole server, does not. The outbox gauges are the
 * shared store's figures (max: the same figure read at nearly the same time); a mapping's last load is ok
 * only when it is in every worker (min); a reload reaches every worker, so it is counted once (max).
 */
export interface EngineMetrics extends Meter {
  readonly registry: Registry;
  /** A mapping file was reloaded after start: ok, or refused and the last good one kept. */
  reload(report: { readonly mapping: string; readonly ok: boolean }): void;
  /** A mapping served from the start: its load is ok, and it is no reload. */
  loaded(mapping: string): void;
  /** Forget a mapping's reload state when its file is removed. */
  removed(mapping: string): void;
  /** Where the expression totals come from (the engine, once it exists). */
  countExpressions(source: () => ExpressionTotals): void;
  /** The request journal whose memory and left-out successes are reported at each scrape. */
  watchJournal(stats: () => JournalStats): void;
  /** The outbox whose pending and dead events are reported at each scrape. */
  watchOutbox(stats: () => Promise<OutboxStats>): void;
  text(): Promise<string>;
}

/** Seconds: contract requests are mostly tens of milliseconds; ERP calls and file uploads may take many seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(options: { readonly processMetrics?: boolean } = {}): EngineMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  const requests = new Counter({ name: 'adapter_requests_total', help: 'Platform requests answered, by mapping, operation and result name (NotFound / MethodNotAllowed for paths that are no contract route).', labelNames: ['mapping', 'operation', 'result'], registers });
  const duration = new Histogram({ name: 'adapter_request_duration_seconds', help: 'Time to answer a platform request.', labelNames: ['mapping', 'operation'], buckets: DURATION_BUCKETS, registers });
  const inFlight = new Gauge({ name: 'adapter_requests_in_flight', help: 'Platform requests being served now.', registers });
  const refused = new Counter({ name: 'adapter_requests_refused_total', help: 'Platform requests refused with 401: credentials missing or not accepted.', labelNames: ['mapping', 'reason'], registers });
  const erpCalls = new Counter({ name: 'adapter_erp_calls_total', help: 'Calls to the ERP, by status class (2xx..5xx, none when no answer came).', labelNames: ['mapping', 'call', 'status_class'], registers });
  const erpAttempts = new Counter({ name: 'adapter_erp_call_attempts_total', help: 'HTTP requests sent to the ERP for those calls, retries and token renewals included.', labelNames: ['mapping', 'call'], registers });
  const erpRetries = new Counter({ name: 'adapter_erp_call_retries_total', help: 'Attempts beyond the first.', labelNames: ['mapping', 'call'], registers });
  const erpDuration = new Histogram({ name: 'adapter_erp_call_duration_seconds', help: 'Time of one ERP call over all its attempts.', labelNames: ['mapping', 'call'], buckets: DURATION_BUCKETS, registers });
  const skipped = new Counter({ name: 'adapter_records_skipped_total', help: 'Records (work orders, items) left out of a list answer because they did not match the contract (onInvalidRecord: skip).', labelNames: ['mapping', 'operation'], registers });
  const cache = new Counter({ name: 'adapter_cache_lookups_total', help: 'Answer cache lookups of calls with a cache.', labelNames: ['mapping', 'call', 'outcome'], registers });
  const tokens = new Counter({ name: 'adapter_oauth2_token_fetches_total', help: 'OAuth2 token fetches, by token endpoint and outcome (ok, failed).', labelNames: ['erp', 'outcome'], registers });
  const reloads = new Counter({ name: 'adapter_mapping_reloads_total', help: 'Mapping loads after start (SIGHUP, --watch), by outcome (ok, failed).', labelNames: ['mapping', 'outcome'], registers, aggregator: 'max' });
  const lastReload = new Gauge({ name: 'adapter_mapping_last_reload_ok', help: '1 when the last load of the mapping file succeeded, 0 when it failed and the last good mapping is still served.', labelNames: ['mapping'], registers, aggregator: 'min' });
  const outboxSettled = new Counter({ name: 'adapter_outbox_deliveries_total', help: 'Outbox delivery attempts by kind (event: the platform\'s, to the ERP; push: the ERP\'s, to the platform; operation is then the push\'s name) and how they ended: delivered, retry (the receiver could not take it now), dead (not retried any more).', labelNames: ['mapping', 'kind', 'operation', 'outcome'], registers });
  const drift = new Counter({ name: 'adapter_erp_drift_total', help: 'Live ERP answers that departed from the shape of the recorded answers in the mapping\'s tests, by call and kind (missing, type, list-became-object); the request is answered as usual.', labelNames: ['mapping', 'call', 'kind'], registers });
  const shadow = new Counter({ name: 'adapter_shadow_requests_total', help: 'Read requests a shadow candidate mapping ran on the live ERP answers: its answer the same as the live one, different, or failed (it needed an answer that was not recorded, or faulted).', labelNames: ['mapping', 'operation', 'outcome'], registers });
  const shadowSkipped = new Counter({ name: 'adapter_shadow_skipped_total', help: 'Read requests a shadow candidate did not run on: 64 runs were waiting already (for a pause between live requests, with the live thread under --shadow-max-cpu-share of a CPU).', labelNames: ['mapping', 'operation'], registers });
  let outboxStats: (() => Promise<OutboxStats>) | undefined;
  // One series per kind: event (the platform's events, to the ERP) and push (the ERP's pushes, to the platform).
  const outboxGauge = (name: string, help: string, read: (stats: KindStats) => number) => new Gauge({
    name, help: `${help} By kind: event (the platform's, to the ERP), push (the ERP's, to the platform).`, labelNames: ['kind'], registers, aggregator: 'max',
    async collect() {
      if (!outboxStats) return;
      try {
        const stats = await outboxStats();
        for (const kind of EVENT_KINDS) this.set({ kind }, read(stats.byKind[kind]));
      } catch {
        // The store is down: the gauge keeps its last value; the delivery loop logs the failure.
      }
    },
  });
  outboxGauge('adapter_outbox_pending', 'Events accepted and not delivered yet.', (stats) => stats.pending);
  outboxGauge('adapter_outbox_dead', 'Events the engine stopped retrying; they wait for support staff (adapter-engine outbox).', (stats) => stats.dead);
  outboxGauge('adapter_outbox_oldest_pending_seconds', 'Age of the oldest pending event (0 when none).', (stats) => (stats.oldestPendingAt === undefined ? 0 : (Date.now() - stats.oldestPendingAt) / 1000));
  let expressionSource: () => ExpressionTotals = () => ({ fast: 0, fallback: 0, interpreter: 0 });
  new Counter({
    name: 'adapter_expression_evaluations_total',
    help: 'Expression evaluations by how they ran: fast (compiled fast path), fallback (fast path gave up, interpreter finished), interpreter.',
    labelNames: ['path'],
    registers,
    collect() {
      const totals = expressionSource();
      this.reset();
      for (const path of ['fast', 'fallback', 'interpreter'] as const) this.inc({ path }, totals[path]);
    },
  });

  let journalStats: () => JournalStats = () => ({ heldChars: 0, notKept: 0 });
  new Gauge({
    name: 'adapter_journal_held_characters', help: 'Characters of request journal entries held in memory: the entries the state store does not hold yet (all of them without a store); at most --journal-size × about 130 KB per mapping.', registers,
    collect() {
      this.set(journalStats().heldChars);
    },
  });
  new Counter({
    name: 'adapter_journal_not_kept_total', help: 'Successful requests the journal did not keep: they came while it had spent its CPU budget (--journal-max-cpu-share). Failures are always kept.', registers,
    collect() {
      this.reset();
      this.inc(journalStats().notKept);
    },
  });

  return {
    registry,
    request({ mapping, operation, result, seconds }) {
      requests.inc({ mapping, operation, result });
      duration.observe({ mapping, operation }, seconds);
    },
    refused({ mapping, reason }) {
      refused.inc({ mapping, reason });
    },
    erpCall({ mapping, call, statusClass, attempts, seconds }) {
      erpCalls.inc({ mapping, call, status_class: statusClass });
      erpAttempts.inc({ mapping, call }, attempts);
      erpRetries.inc({ mapping, call }, Math.max(0, attempts - 1));
      erpDuration.observe({ mapping, call }, seconds);
    },
    recordSkipped({ mapping, operation }) {
      skipped.inc({ mapping, operation });
    },
    cache({ mapping, call, hit }) {
      cache.inc({ mapping, call, outcome: hit ? 'hit' : 'miss' });
    },
    tokenFetch({ erp, ok }) {
      tokens.inc({ erp, outcome: ok ? 'ok' : 'failed' });
    },
    inFlight(delta) {
      inFlight.inc(delta);
    },
    reload({ mapping, ok }) {
      reloads.inc({ mapping, outcome: ok ? 'ok' : 'failed' });
      lastReload.set({ mapping }, ok ? 1 : 0);
    },
    loaded(mapping) {
      lastReload.set({ mapping }, 1);
    },
    removed(mapping) {
      lastReload.remove({ mapping });
    },
    countExpressions(source) {
      expressionSource = source;
    },
    watchJournal(stats) {
      journalStats = stats;
    },
    watchOutbox(stats) {
      outboxStats = stats;
    },
    drift({ mapping, call, kind }) {
      drift.inc({ mapping, call, kind });
    },
    shadow({ mapping, operation, outcome }) {
      if (outcome === 'skipped') shadowSkipped.inc({ mapping, operation });
      else shadow.inc({ mapping, operation, outcome });
    },
    outboxSettled({ mapping, kind, operation, verdict }) {
      outboxSettled.inc({ mapping, kind, operation, outcome: verdict });
    },
    text: () => registry.metrics(),
  };
}
