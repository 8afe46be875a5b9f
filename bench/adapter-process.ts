import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createEngine, createHttpApp, loadMapping } from '../engine';
import { openOutboxStore, usesOutbox } from '../engine/state/state-store';
import { exampleEnv } from '../examples/example-env';
import { createBaselineApp } from './baseline/app';

/**
 * One adapter under measurement, in its own process: the engine with one or more mapping files, or the
 * hand-written baseline. It reports its port when it listens and answers `stats` with its own CPU time
 * and peak RSS, so nothing the harness or the load generator does is counted against it.
 */

export interface AdapterConfig {
  readonly kind: 'engine' | 'baseline';
  readonly erpUrl: string;
  /** Mapping files (engine only). With several, each gets its own app and port; the first is reported. */
  readonly mappings: readonly string[];
}

export type AdapterMessage =
  | { type: 'listening'; port: number; ports: number[] }
  | { type: 'stats'; cpuUserUs: number; cpuSystemUs: number; maxRssKb: number };

function listen(callback: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(callback);
  // Large export and file bodies take a while to arrive under load; keep Node's defaults from cutting them.
  server.requestTimeout = 0;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.BENCH_ADAPTER ?? '') as AdapterConfig;
  const closers: (() => void)[] = [];
  const listeners: http.RequestListener[] = [];
  if (config.kind === 'engine') {
    for (const [index, file] of config.mappings.entries()) {
      const mapping = loadMapping(file, { env: { ...process.env, ...exampleEnv(config.erpUrl) } }).mapping;
      // As serve runs it: outbox events go to SQLite in a state directory of this run, and are delivered in the background.
      const outbox = usesOutbox([mapping]) ? await openOutboxStore({ stateDir: fs.mkdtempSync(path.join(os.tmpdir(), `bench-state-${index}-`)) }) : undefined;
      const engine = createEngine({ mappings: [mapping], outbox });
      engine.deliverer?.start();
      listeners.push(createHttpApp(engine).callback());
      closers.push(() => void engine.close().then(() => outbox?.close()));
    }
  } else {
    const app = createBaselineApp({ erpUrl: config.erpUrl });
    listeners.push(app.koa.callback());
    closers.push(() => app.close());
  }
  const servers = await Promise.all(listeners.map(listen));
  const ports = servers.map((s) => s.port);
  process.send?.({ type: 'listening', port: ports[0], ports } satisfies AdapterMessage);

  process.on('message', (message: { type?: string }) => {
    if (message.type === 'stats') {
      const cpu = process.cpuUsage();
      process.send?.({ type: 'stats', cpuUserUs: cpu.user, cpuSystemUs: cpu.system, maxRssKb: process.resourceUsage().maxRSS } satisfies AdapterMessage);
    }
  });
  // The harness going away (or closing the channel) ends the adapter: no orphans on a failed run.
  process.on('disconnect', () => {
    for (const close of closers) close();
    for (const { server } of servers) server.close();
    process.exit(0);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
