import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { shadowReport, type ShadowReport } from '../shadow/report';
import { startAdminListener, warnWithoutTokens } from './admin-listener';
import { listenOn, servedOpenApi, startInstance, type Instance } from './instance';
import type { JournalEntry } from '../journal/journal-entry';
import { listLimit, type JournalFilter, type JournalSummary } from '../journal/store';
import { createMetrics } from './metrics';
import { openServedOutbox, openState } from '../state/state-store';
import { storeSupport } from '../outbox/support';
import { installProcessGuards } from './process-guards';
import { engineVersion } from '../paths';
import type { ServeSettings } from './settings';
import { announceListening } from './startup-lines';
import { onSignals } from './signals';
import { watchMappings } from './watch';
import type { Readiness } from './readiness';
import { tracingFromEnv } from '../trace/from-env';

/**
 * `serve --workers N`: N processes share the platform's port (node:cluster hands connections out). The
 * primary serves no request itself: it keeps the workers running (a worker that dies is replaced), runs
 * the admin listener with the workers' metrics merged (prom-client's AggregatorRegistry; see metrics.ts), passes
 * reloads on to every worker, and on SIGTERM lets each worker drain before it exits.
 */

/** What the primary asks every worker, each question with its id; a worker answers `adapter:answer` with that id. */
type Question = { readonly type: 'adapter:ready?' } | { readonly type: 'adapter:requests?'; readonly filter: JournalFilter } | { readonly type: 'adapter:request?'; readonly entryId: string } | { readonly type: 'adapter:candidates?' };
type ToWorker = { readonly type: 'adapter:reload'; readonly force: boolean; readonly certificates: boolean } | { readonly type: 'adapter:stop' } | { readonly type: 'adapter:ask'; readonly id: number; readonly question: Question };
type ToPrimary = { readonly type: 'adapter:listening'; readonly address: AddressInfo } | { readonly type: 'adapter:answer'; readonly id: number; readonly answer: unknown };

/** A worker's answer to a question. */
async function answerOf(instance: Instance, question: Question): Promise<unknown> {
  switch (question.type) {
    case 'adapter:ready?': return instance.readiness();
    case 'adapter:requests?': return instance.engine.journal.list(question.filter);
    case 'adapter:request?': return (await instance.engine.describeRequest(question.entryId)) ?? null;
    case 'adapter:candidates?': return instance.shadow.candidates.map((candidate) => ({ mapping: candidate.name, file: candidate.file }));
  }
}

/** The candidates every worker runs, each once (a worker between two reloads may still run older ones). */
function candidatesOf(answers: readonly unknown[]): ShadowReport['candidates'] {
  const byKey = new Map<string, ShadowReport['candidates'][number]>();
  for (const list of answers as ShadowReport['candidates'][]) for (const candidate of list) byKey.set(`${candidate.mapping}\n${candidate.file}`, candidate);
  return [...byKey.values()];
}

/** Each worker keeps its own journal (and they share the state store's): one list, newest first, each request once. */
function mergedRequests(answers: readonly unknown[], filter: JournalFilter): JournalSummary[] {
  const byId = new Map<string, JournalSummary>();
  for (const list of answers as readonly JournalSummary[][]) for (const summary of list) byId.set(summary.id, summary);
  return [...byId.values()].sort((a, b) => b.at - a.at).slice(0, listLimit(filter));
}

const isMessage = (message: unknown, type: string): boolean => typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

export async function servePrimary(settings: ServeSettings, workerCount: number, workerEnv: NodeJS.ProcessEnv): Promise<void> {
  const { log } = settings;
  const aggregator = new AggregatorRegistry();
  const own = new Registry();
  const restarts = new Counter({ name: 'adapter_worker_restarts_total', help: 'Workers that ended unexpectedly and were replaced.', registers: [own] });
  const removeGuards = installProcessGuards({ currentRequest: () => undefined }, log);
  let stopping = false;
  let asked = 0;
  const pending = new Map<number, { readonly answers: Map<number, unknown>; readonly done: () => void }>();

  const fork = (): Worker => {
    const worker = cluster.fork(workerEnv);
    worker.on('message', (message: ToPrimary) => {
      if (isMessage(message, 'adapter:answer') && message.type === 'adapter:answer') {
        const waiting = pending.get(message.id);
        waiting?.answers.set(worker.process.pid ?? 0, message.answer);
        if (waiting && waiting.answers.size >= Object.keys(cluster.workers ?? {}).length) waiting.done();
      }
    });
    return worker;
  };
  const workers = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  // Counted at each scrape: a worker replaced after it died is one again as soon as it is forked.
  new Gauge({ name: 'adapter_workers', help: 'Worker processes serving the platform.', registers: [own], collect() { this.set(workers().length); } });
  // A worker may be dying between isConnected() and the write (EPIPE): with a callback the error comes
  // here instead of as an uncaught exception of the primary; the exit handler replaces that worker.
  const tell = (worker: Worker, message: ToWorker) => {
    if (worker.isConnected()) worker.send(message, undefined, (error) => { if (error) log.warn({ err: error, pid: worker.process.pid, message: message.type }, 'a worker could not be told; it is ending'); });
  };
  const send = (message: ToWorker) => {
    for (const worker of workers()) tell(worker, message);
  };

  const listening = new Promise<AddressInfo>((resolve) => {
    cluster.on('message', (worker, message: ToPrimary) => {
      if (message.type !== 'adapter:listening') return;
      resolve(message.address);
      // A worker still loading its modules when the stop went out never heard it (a message that comes
      // before its handler is lost), and the stop waited for the hard timeout: tell it again now.
      if (stopping) tell(worker, { type: 'adapter:stop' });
    });
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    restarts.inc();
    log.error({ pid: worker.process.pid, code, signal }, 'a worker ended unexpectedly; starting a new one');
    fork();
  });
  let served = { mappings: settings.initial.mappings, prefixed: settings.prefixed };
  /** `force`: SIGHUP (every file read again, and the workers' TLS files); else a --watch change. */
  const reload = async (force: boolean) => {
    try {
      // The primary reads the files too, only to describe what is served (/openapi.json); the workers serve.
      served = { ...served, mappings: (await settings.source.load({ force })).mappings };
    } catch (error) {
      log.error({ err: error }, 'reading the mapping files failed; the workers keep serving what they loaded before');
    }
    send({ type: 'adapter:reload', force, certificates: force });
    warnWithoutTokens(settings);
  };
  // Before the first "listening" line (see onSignals). A reload while workers start reaches the ones forked; the others read the files as they start.
  const signals = onSignals(() => void reload(true));
  for (let index = 0; index < workerCount; index += 1) fork();
  const address = await listening;
  settings.listening?.(address);
  announceListening(settings.announce, address, { tls: settings.tls !== undefined, prefixed: settings.prefixed, mappings: settings.initial.mappings.map((mapping) => mapping.name) });

  /** Every worker's answer (by pid) that came within two seconds. */
  const ask = async (question: Question): Promise<Map<number, unknown>> => {
    const id = (asked += 1);
    const answers = new Map<number, unknown>();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      pending.set(id, { answers, done: () => { clearTimeout(timer); resolve(); } });
      send({ type: 'adapter:ask', id, question });
    });
    pending.delete(id);
    return answers;
  };
  const readiness = async (): Promise<Readiness & { readonly workers: readonly { pid: number; ready: boolean }[] }> => {
    const all = [...(await ask({ type: 'adapter:ready?' })).entries()] as [number, Readiness][];
    const first = all[0]?.[1];
    // The workers share one outbox store: any worker's figures are the server's.
    const outbox = all.find(([, answer]) => answer.outbox !== undefined)?.[1].outbox;
    return {
      ready: all.length === workerCount && all.every(([, answer]) => answer.ready),
      mappings: first?.mappings ?? [],
      ...(outbox ? { outbox } : {}),
      workers: all.map(([pid, answer]) => ({ pid, ready: answer.ready })),
    };
  };

  const outbox = await openServedOutbox(settings, log);
  const admin = await startAdminListener(settings, {
    ready: readiness,
    metrics: async () => ({ contentType: aggregator.contentType, text: `${await aggregator.clusterMetrics()}\n${await own.metrics()}` }),
    openapi: () => servedOpenApi(served, engineVersion()),
    requests: async (filter) => mergedRequests([...(await ask({ type: 'adapter:requests?', filter })).values()], filter),
    request: async (entryId) => [...(await ask({ type: 'adapter:request?', entryId })).values()].find((entry): entry is JournalEntry => entry !== null),
    // The candidates the workers run (one list: a reload reaches them all), not the files as they are now.
    shadow: async (filter) => shadowReport(
      candidatesOf([...(await ask({ type: 'adapter:candidates?' })).values()]),
      filter,
      async (asked) => mergedRequests([...(await ask({ type: 'adapter:requests?', filter: asked })).values()], asked),
      async (entryId) => [...(await ask({ type: 'adapter:request?', entryId })).values()].find((entry): entry is JournalEntry => entry !== null),
    ),
    // The workers poll the shared store: a retried event goes out at their next look (every 500 ms).
    outbox: outbox && storeSupport(outbox),
  });
  const stopWatching = settings.watch ? watchMappings(settings.source.watched, () => void reload(false), (error) => log.error({ err: error }, 'watching the mapping files failed; reload with SIGHUP')) : () => undefined;
  await signals.stopped;
  stopping = true;
  stopWatching();
  log.info({ workers: workers().length }, 'stopping: every worker answers its requests in flight, then exits');
  const exited = Promise.all(workers().map((worker) => new Promise<void>((resolve) => worker.once('exit', () => resolve()))));
  send({ type: 'adapter:stop' });
  // The workers bound their own drain by the shutdown timeout; this bounds a worker that hangs anyway.
  const hard = setTimeout(() => { for (const worker of workers()) worker.process.kill('SIGKILL'); }, settings.shutdownTimeoutMs + 5000);
  await exited;
  clearTimeout(hard);
  await admin.close();
  await outbox?.close();
  signals.remove();
  removeGuards();
}

/** One worker: an instance on the shared port that answers the primary's messages. */
export async function serveWorker(settings: ServeSettings): Promise<void> {
  const { log } = settings;
  const metrics = createMetrics();
  // Lets the primary's AggregatorRegistry collect this worker's registry (prom-client's cluster protocol).
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
  const { outbox, journal, drift } = await openState(settings, log);
  const tracing = await tracingFromEnv(process.env, log);
  const instance = startInstance({ source: settings.source, initial: settings.initial, prefixed: settings.prefixed, host: settings.host, tls: settings.tls, log, metrics, outbox, journal, secrets: settings.secrets, drift, shadowMaxCpuShare: settings.shadowMaxCpuShare, tracing });
  const removeGuards = installProcessGuards(instance.engine, log);
  const signals = onSignals(() => void instance.reload({ force: true, certificates: true }));
  const toPrimary = (message: ToPrimary) => process.send?.(message);
  // Listening for the primary before the port is: a reload or a stop sent while this worker starts is not lost.
  const stopped = new Promise<void>((resolve) => {
    process.on('message', (message: ToWorker) => {
      if (isMessage(message, 'adapter:reload') && message.type === 'adapter:reload') void instance.reload({ force: message.force, certificates: message.certificates });
      if (isMessage(message, 'adapter:stop')) resolve();
      if (isMessage(message, 'adapter:ask') && message.type === 'adapter:ask') {
        const { id } = message;
        void answerOf(instance, message.question).then((answer) => toPrimary({ type: 'adapter:answer', id, answer }), () => undefined);
      }
    });
    // The primary is gone (killed): nobody will restart or stop this worker, so it stops by itself.
    process.once('disconnect', () => resolve());
    void signals.stopped.then(() => resolve());
  });
  const address = await listenOn(instance.server, settings.port, settings.host);
  instance.engine.deliverer?.start();
  toPrimary({ type: 'adapter:listening', address });
  await stopped;
  const result = await instance.stop(settings.shutdownTimeoutMs);
  if (!result.finished) log.warn({ forcedConnections: result.forcedConnections }, 'shutdown timeout passed; connections with requests still in flight were closed');
  signals.remove();
  removeGuards();
  process.disconnect?.();
}
