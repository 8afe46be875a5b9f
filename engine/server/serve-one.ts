import { shadowReport } from '../shadow/report';
import { startAdminListener, warnWithoutTokens, type AdminListener } from './admin-listener';
import { listenOn, startInstance } from './instance';
import { createMetrics } from './metrics';
import { openState } from '../state/state-store';
import { storeSupport } from '../outbox/support';
import { installProcessGuards } from './process-guards';
import type { ServeSettings } from './settings';
import { announceListening } from './startup-lines';
import { onSignals } from './signals';
import { watchMappings } from './watch';
import { tracingFromEnv } from '../trace/from-env';
import { servedStudioSources } from '../studio/served';
import { studioMiddleware } from '../studio/studio-app';

/**
 * `serve` in one process: the platform's listener, the admin listener, reloads on SIGHUP and --watch,
 * and a graceful stop on SIGTERM/SIGINT. Resolves when stopped.
 */
export async function serveOne(settings: ServeSettings): Promise<void> {
  const { log } = settings;
  const metrics = createMetrics();
  const { outbox, journal, drift } = await openState(settings, log);
  const tracing = await tracingFromEnv(process.env, log);
  const instance = startInstance({ source: settings.source, initial: settings.initial, prefixed: settings.prefixed, host: settings.host, tls: settings.tls, log, metrics, outbox, journal, secrets: settings.secrets, drift, shadowMaxCpuShare: settings.shadowMaxCpuShare, tracing });
  const removeGuards = installProcessGuards(instance.engine, log);
  // Before the first "listening" line (see onSignals); they stay installed while draining: a second Ctrl-C must not kill the requests in flight.
  const signals = onSignals(() => {
    void instance.reload({ force: true, certificates: true });
    warnWithoutTokens(settings);
  });
  let admin: AdminListener;
  try {
    const address = await listenOn(instance.server, settings.port, settings.host);
    settings.listening?.(address);
    announceListening(settings.announce, address, { tls: settings.tls !== undefined, prefixed: settings.prefixed, mappings: instance.engine.mappings.map((mapping) => mapping.name) });
    admin = await startAdminListener(settings, {
      ready: () => instance.readiness(),
      metrics: async () => ({ contentType: metrics.registry.contentType, text: await metrics.text() }),
      openapi: () => instance.openapi(),
      requests: (filter) => journal.list(filter),
      request: (id) => instance.engine.describeRequest(id),
      shadow: (filter) => shadowReport(instance.shadow.candidates.map((candidate) => ({ mapping: candidate.name, file: candidate.file })), filter, (asked) => journal.list(asked), (id) => instance.engine.describeRequest(id)),
      studio: studioMiddleware({
        sources: servedStudioSources({ files: () => settings.source.states(), requests: (filter) => journal.list(filter), request: (id) => instance.engine.describeRequest(id), outbox, wake: () => instance.engine.deliverer?.wake() }),
        settle: settings.admin?.studioWrite === true,
        log,
      }),
      // A retried event goes out now, not at the next poll.
      outbox: outbox && storeSupport(outbox, () => instance.engine.deliverer?.wake()),
    });
  } catch (error) {
    await instance.stop(0);
    signals.remove();
    removeGuards();
    throw error;
  }

  instance.engine.deliverer?.start();
  const stopWatching = settings.watch
    ? watchMappings(settings.source.watched, () => {
      void instance.reload();
      warnWithoutTokens(settings);
    }, (error) => log.error({ err: error }, 'watching the mapping files failed; reload with SIGHUP'))
    : () => undefined;
  const signal = await signals.stopped;
  stopWatching();
  log.info({ signal, timeoutMs: settings.shutdownTimeoutMs }, 'stopping: no new connections; answering the requests in flight');
  const result = await instance.stop(settings.shutdownTimeoutMs);
  if (result.finished) log.info({ inFlightAtStart: result.inFlightAtStart, ms: result.ms }, 'stopped after answering every request in flight');
  else log.warn({ forcedConnections: result.forcedConnections, timeoutMs: settings.shutdownTimeoutMs }, 'shutdown timeout passed; connections with requests still in flight were closed');
  await admin.close();
  signals.remove();
  removeGuards();
}
