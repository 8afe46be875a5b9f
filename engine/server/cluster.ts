import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { startAdminListener } from './admin-listener';
import { listenOn, servedOpenApi, startInstance } from './instance';
import { createMetrics } from './metrics';
import { outboxFor } from './outbox-store';
import { installProcessGuards } from './process-guards';
import { engineVersion } from '../paths';
import { listeningLines, type ServeSettings } from './settings';
import { onSignals } from './signals';
import { watchMappings } from './watch';
import type { Readiness } from './readiness';

/**
 * `serve --workers N`: N processes share the platform's port (node:cluster hands connections out). The
 * primary serves no request itself: it keeps the workers running (a worker that dies is replaced), runs
 * the admin listener with metrics summed over the workers (prom-client's AggregatorRegistry), passes
 * reloads on to every worker, and on SIGTERM lets each worker drain before it exits.
 */

type ToWorker = { readonly type: 'adapter:reload'; readonly force: boolean } | { readonly type: 'adapter:ready?'; readonly id: number } | { readonly type: 'adapter:stop' };
type ToPrimary = { readonly type: 'adapter:listening'; readonly port: number } | { readonly type: 'adapter:ready'; readonly id: number; readonly readiness: Readiness };

const isMessage = (message: unknown, type: string): boolean => typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

export async function servePrimary(settings: ServeSettings, workerCount: number, workerEnv: NodeJS.ProcessEnv): Promise<void> {
  const { log } = settings;
  const aggregator = new AggregatorRegistry();
  const own = new Registry();
  const workersGauge = new Gauge({ name: 'adapter_workers', help: 'Worker processes serving the platform.', registers: [own] });
  const restarts = new Counter({ name: 'adapter_worker_restarts_total', help: 'Workers that ended unexpectedly and were replaced.', registers: [own] });
  const removeGuards = installProcessGuards({ currentRequest: () => undefined }, log);
  let stopping = false;
  let asked = 0;
  const pendingReady = new Map<number, { readonly answers: Map<number, Readiness>; readonly done: () => void }>();

  const fork = (): Worker => {
    const worker = cluster.fork(workerEnv);
    worker.on('message', (message: ToPrimary) => {
      if (isMessage(message, 'adapter:ready') && message.type === 'adapter:ready') {
        const pending = pendingReady.get(message.id);
        pending?.answers.set(worker.process.pid ?? 0, message.readiness);
        if (pending && pending.answers.size >= Object.keys(cluster.workers ?? {}).length) pending.done();
      }
    });
    return worker;
  };
  const workers = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  // A worker may be dying between isConnected() and the write (EPIPE): with a callback the error comes
  // here instead of as an uncaught exception of the primary; the exit handler replaces that worker.
  const send = (message: ToWorker) => {
    for (const worker of workers()) {
      if (worker.isConnected()) worker.send(message, undefined, (error) => { if (error) log.warn({ err: error, pid: worker.process.pid, message: message.type }, 'a worker could not be told; it is ending'); });
    }
  };

  const listening = new Promise<number>((resolve) => {
    cluster.on('message', (_worker, message: ToPrimary) => {
      if (message.type === 'adapter:listening') resolve(message.port);
    });
  });
  cluster.on('exit', (worker, code, signal) => {
    workersGauge.set(workers().length);
    if (stopping) return;
    restarts.inc();
    log.error({ pid: worker.process.pid, code, signal }, 'a worker ended unexpectedly; starting a new one');
    fork();
  });
  let served = { mappings: settings.initial.mappings, prefixed: settings.prefixed };
  const reload = (force: boolean) => {
    try {
      // The primary reads the files too, only to describe what is served (/openapi.json); the workers serve.
      served = { ...served, mappings: settings.source.load({ force }).mappings };
    } catch (error) {
      log.error({ err: error }, 'reading the mapping files failed; the workers keep serving what they loaded before');
    }
    send({ type: 'adapter:reload', force });
  };
  // Before the first "listening" line (see onSignals). A reload while workers start reaches the ones forked; the others read the files as they start.
  const signals = onSignals(() => reload(true));
  for (let index = 0; index < workerCount; index += 1) fork();
  workersGauge.set(workerCount);
  const port = await listening;
  for (const line of listeningLines(settings, port, settings.initial.mappings.map((mapping) => mapping.name))) settings.print(line);

  const readiness = async (): Promise<Readiness & { readonly workers: readonly { pid: number; ready: boolean }[] }> => {
    const id = (asked += 1);
    const answers = new Map<number, Readiness>();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      pendingReady.set(id, { answers, done: () => { clearTimeout(timer); resolve(); } });
      send({ type: 'adapter:ready?', id });
    });
    pendingReady.delete(id);
    const all = [...answers.entries()];
    const first = all[0]?.[1];
    return {
      ready: all.length === workerCount && all.every(([, answer]) => answer.ready),
      mappings: first?.mappings ?? [],
      workers: all.map(([pid, answer]) => ({ pid, ready: answer.ready })),
    };
  };

  const admin = await startAdminListener(settings, {
    ready: readiness,
    metrics: async () => ({ contentType: aggregator.contentType, text: `${await aggregator.clusterMetrics()}\n${await own.metrics()}` }),
    openapi: () => servedOpenApi(served, engineVersion()),
  });
  const stopWatching = settings.watch ? watchMappings(settings.source.watched, () => reload(false), (error) => log.error({ err: error }, 'watching the mapping files failed; reload with SIGHUP')) : () => undefined;
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
  const outbox = await outboxFor(settings);
  const instance = startInstance({ source: settings.source, initial: settings.initial, prefixed: settings.prefixed, host: settings.host, tls: settings.tls, log, metrics, outbox });
  const removeGuards = installProcessGuards(instance.engine, log);
  const signals = onSignals(() => instance.reload({ force: true }));
  const toPrimary = (message: ToPrimary) => process.send?.(message);
  // Listening for the primary before the port is: a reload or a stop sent while this worker starts is not lost.
  const stopped = new Promise<void>((resolve) => {
    process.on('message', (message: ToWorker) => {
      if (isMessage(message, 'adapter:reload') && message.type === 'adapter:reload') instance.reload({ force: message.force });
      if (isMessage(message, 'adapter:stop')) resolve();
      if (isMessage(message, 'adapter:ready?') && message.type === 'adapter:ready?') {
        const { id } = message;
        void instance.readiness().then((readiness) => toPrimary({ type: 'adapter:ready', id, readiness }), () => undefined);
      }
    });
    // The primary is gone (killed): nobody will restart or stop this worker, so it stops by itself.
    process.once('disconnect', () => resolve());
    void signals.stopped.then(() => resolve());
  });
  const address = await listenOn(instance.server, settings.port, settings.host);
  instance.engine.deliverer?.start();
  toPrimary({ type: 'adapter:listening', port: address.port });
  await stopped;
  const result = await instance.stop(settings.shutdownTimeoutMs);
  if (!result.finished) log.warn({ forcedConnections: result.forcedConnections }, 'shutdown timeout passed; connections with requests still in flight were closed');
  signals.remove();
  removeGuards();
  process.disconnect?.();
}
