import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import { openApiDocument } from '../contract/openapi';
import { studioOpenApiPaths } from '../studio/openapi-paths';
import { createEngine, type Engine } from '../core/engine';
import { createDriftWatch, type DriftWatch } from '../drift/watch';
import type { Mapping } from '../mapping/model';
import { createShadowRunner, type ShadowRunner } from '../shadow/runner';
import { shapesFromTests } from '../shadow/shapes-from-tests';
import type { DriftSightings } from '../state/drift-sightings';
import type { Journal } from '../journal/journal';
import type { Logger } from '../log';
import type { SecretRegistry } from '../mapping/secret-registry';
import { engineVersion } from '../paths';
import { createHttpApp } from './app';
import { drain, trackRequests, type DrainResult } from './drain';
import { createListener, reloadCertificates, type TlsFiles } from './listener';
import type { OutboxStore } from '../outbox/store';
import type { LoadReport, MappingSource } from './mapping-source';
import type { EngineMetrics } from './metrics';
import { readiness, type Readiness } from './readiness';
import { releaseMemoryWhenIdle } from './idle-memory';
import type { Tracing } from '../trace/spans';

/**
 * One serving process: the engine, the platform's listener in front of it, and the mapping source it
 * reloads from. `serve` runs one of these, or one per worker with --workers.
 */
export interface InstanceSettings {
  readonly source: MappingSource;
  /** The first load, already checked by the caller (every file loaded). */
  readonly initial: LoadReport;
  /** Each mapping under /<name> (several files, or a directory); otherwise the one mapping at the root. */
  readonly prefixed: boolean;
  readonly host?: string;
  readonly tls?: TlsFiles;
  readonly log: Logger;
  readonly metrics: EngineMetrics;
  readonly outbox?: OutboxStore;
  readonly journal?: Journal;
  readonly secrets?: SecretRegistry;
  /** Span export, when OTEL_* asks for it; the engine shuts it down when it closes. */
  readonly tracing?: Tracing;
  /** Where the ERP drift seen live is kept with its date (state-store.ts chooses), for `adapter-engine test`; not kept without. */
  readonly drift?: DriftSightings;
  /** Shadow candidates' runs wait while the live requests' thread uses more than this share of a CPU (0..1); default DEFAULT_SHADOW_CPU_SHARE. */
  readonly shadowMaxCpuShare?: number;
}

/** Candidates are handed their runs only while the live thread uses less than half a CPU: the live answers come first. */
export const DEFAULT_SHADOW_CPU_SHARE = 0.5;

export interface Instance {
  readonly engine: Engine;
  /** The shadow candidates served beside the live mappings, and their runs. */
  readonly shadow: ShadowRunner;
  readonly server: http.Server | https.Server;
  /**
   * Reads the mapping files again and swaps in what loaded; logs and counts every outcome; never rejects.
   * `certificates` (SIGHUP, not --watch) reads the listener's TLS files again too.
   */
  reload(options?: { readonly force?: boolean; readonly certificates?: boolean }): Promise<LoadReport>;
  readiness(): Promise<Readiness>;
  openapi(): Record<string, unknown>;
  /** Stops accepting, lets requests in flight answer (up to timeoutMs), closes the engine. */
  stop(timeoutMs: number): Promise<DrainResult>;
}

/** The served contract as an OpenAPI document, from what is served now. */
export function servedOpenApi(engine: Pick<Engine, 'mappings' | 'prefixed'>, version: string): Record<string, unknown> {
  return openApiDocument(
    engine.mappings.map((mapping) => ({
      name: mapping.name,
      prefix: engine.prefixed ? `/${encodeURIComponent(mapping.name)}` : '',
      mapped: new Set(mapping.operations.keys()),
      inboundAuth: mapping.inbound.auth.type === 'apiKey' ? { type: 'apiKey', header: mapping.inbound.auth.header } : { type: mapping.inbound.auth.type },
    })),
    { title: 'Warehouse adapter contract', version },
    studioOpenApiPaths(),
  );
}

/** Logs and counts the outcome of a load after start: a file that did not load keeps its last good mapping. */
function reportLoad(report: LoadReport, log: Logger, metrics: EngineMetrics): void {
  for (const state of report.attempts) {
    const mapping = state.mapping?.name ?? state.file;
    metrics.reload({ mapping, ok: state.last.ok });
    if (state.last.ok) {
      log.info({ file: state.file, mapping }, 'mapping loaded');
      continue;
    }
    const kept = state.mapping ? `the mapping loaded at ${state.loadedAt} keeps serving` : 'nothing is served from this file';
    // One line per problem, each saying what serves meanwhile: a log search for the file finds the whole story in as many lines as there are problems.
    for (const problem of state.last.problems) log.error({ file: state.file, kept }, `${problem}  (mapping file not loaded; ${kept})`);
  }
  for (const file of report.removed) log.info({ file }, 'mapping file removed; its routes are no longer served');
}

/** Learns the answer shapes of the mappings just loaded (their test files), and reads the shadow candidates again. */
function watchChanges(source: MappingSource, loaded: readonly Mapping[], served: readonly Mapping[], drift: DriftWatch, shadow: ShadowRunner, log: Logger): void {
  for (const mapping of loaded) drift.learned(mapping.name, shapesFromTests(mapping));
  let load;
  try {
    load = source.loadCandidates(served.map((mapping) => mapping.name));
  } catch (error) {
    log.error({ err: error }, 'reading the shadow candidates failed; the candidates loaded before keep running');
    return;
  }
  for (const problem of load.problems) log.error(problem);
  const before = new Map(shadow.candidates.map((candidate) => [candidate.name, candidate]));
  shadow.replace(load.candidates);
  for (const { mapping: candidate } of load.candidates) if (before.get(candidate.name)?.file !== candidate.file || !before.has(candidate.name)) log.info({ mapping: candidate.name, file: candidate.file }, 'shadow candidate loaded: it runs on the live ERP answers of read requests');
}

export function startInstance(settings: InstanceSettings): Instance {
  const { source, log, metrics } = settings;
  const { outbox, drift: sightings } = settings;
  const drift = createDriftWatch({
    meter: metrics, log,
    // Not awaited: the request that saw the drift is answered as usual, whether or not the store answers.
    sighted: sightings && ((sighting) => void sightings.keep(sighting).catch((error: unknown) => {
      log.warn({ err: error, store: sightings.location }, 'the ERP drift seen could not be kept; adapter-engine test will not warn of it');
    })),
  });
  const engine = createEngine({ mappings: settings.initial.mappings, log, meter: metrics, prefixed: settings.prefixed, outbox, journal: settings.journal, secrets: settings.secrets, drift, tracing: settings.tracing });
  metrics.countExpressions(() => engine.expressionStats());
  metrics.watchJournal(() => engine.journal.stats());
  if (outbox) metrics.watchOutbox(() => outbox.stats());
  for (const state of settings.initial.states) if (state.mapping) metrics.loaded(state.mapping.name);
  const handler = createHttpApp(engine, { sent: (answer) => shadow.answered(answer) }).callback();
  const server = createListener(handler, settings.tls);
  // Requests with `Expect: 100-continue` go to the app unanswered: it sends 100 Continue once their credentials are accepted.
  server.on('checkContinue', handler);
  const tracker = trackRequests(server);
  // The candidates run between the live requests the tracker counts (no request is answered before this returns).
  const shadow = createShadowRunner({ journal: engine.journal, meter: metrics, log, maxCpuShare: settings.shadowMaxCpuShare ?? DEFAULT_SHADOW_CPU_SHARE, thread: source.compiledWith, live: tracker });
  watchChanges(source, engine.mappings, engine.mappings, drift, shadow, log);
  const idleMemory = releaseMemoryWhenIdle(server, log);
  return {
    engine,
    shadow,
    server,
    async reload(options = {}) {
      if (options.certificates) reloadCertificates(server, settings.tls, log);
      let report: LoadReport;
      try {
        report = await source.load(options);
      } catch (error) {
        // The directory itself went away or became unreadable: keep serving what was loaded.
        log.error({ err: error }, 'reading the mapping files failed; the mappings loaded before keep serving');
        return { mappings: engine.mappings, states: source.states(), attempts: [], removed: [] };
      }
      const before = new Set(engine.mappings.map((mapping) => mapping.name));
      try {
        engine.replaceMappings(report.mappings);
      } catch (error) {
        log.error({ err: error }, `the reloaded mappings cannot be served (${(error as Error).message}); the mappings loaded before keep serving`);
        return { ...report, mappings: engine.mappings };
      }
      for (const name of before) if (!report.mappings.some((mapping) => mapping.name === name)) metrics.removed(name);
      reportLoad(report, log, metrics);
      watchChanges(source, report.attempts.flatMap((state) => (state.mapping && state.last.ok ? [state.mapping] : [])), engine.mappings, drift, shadow, log);
      return report;
    },
    readiness: () => readiness(engine, source.states(), settings.host, outbox),
    openapi: () => servedOpenApi(engine, engineVersion()),
    async stop(timeoutMs) {
      idleMemory.stop();
      const result = await drain(server, tracker, { timeoutMs });
      // Candidate runs under way finish before the journal they write to closes; then their thread stops.
      await shadow.close();
      // Deliveries under way finish first (an event never stays claimed by a process that is gone for good).
      await engine.close();
      await outbox?.close();
      await sightings?.close();
      return result;
    },
  };
}

/** Listens, turning the errors an operator can fix into messages that say how. */
export async function listenOn(server: http.Server | https.Server, port: number, host: string | undefined): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new ListenError(`port ${port} is already in use; choose another`);
    if (error.code === 'EACCES') throw new ListenError(`not allowed to listen on port ${port}; choose a port above 1023`);
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') throw new ListenError(`cannot listen on host ${host}: ${error.code}`);
    throw error;
  });
  return server.address() as AddressInfo;
}

export class ListenError extends Error {}
