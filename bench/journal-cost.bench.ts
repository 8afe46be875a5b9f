/**
 * What the request journal costs on the request path: GET /WorkOrders/Code?Code=SO-1001 (one ERP call,
 * one outcome rule, an output of one work order) through Engine.handle, in this process, against the
 * example ERP in its own process. Three engines in one process: no journal (size 0), the journal in
 * memory (size 1000), and the journal with the SQLite state store. They take turns in batches of
 * 200 requests (8 at a time), in rotating order, so a change in the machine's load hits all three; the
 * CPU time of this process per request is compared as medians over the batches. With --http each
 * engine is served by the server's Koa app on 127.0.0.1 and autocannon (a fresh process per batch, as
 * in case 1) sends the batch over HTTP; requests per second are autocannon's.
 * Run: npm run build && node dist/bench/journal-cost.bench.js [rounds] [--http]
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../engine/core/engine';
import { createJournal } from '../engine/journal/journal';
import { openSqliteJournal } from '../engine/journal/sqlite-journal';
import { loadMapping } from '../engine/mapping/load';
import { MAPPINGS_DIR } from '../engine/paths';
import { createHttpApp } from '../engine/server/app';
import { exampleEnv } from '../examples/example-env';
import { runLoad, startErpProcess } from './lib/processes';

const HTTP = process.argv.includes('--http');
const BATCH = HTTP ? 2000 : 200;
const CONCURRENCY = 8;

async function batch(engine: Engine, count: number): Promise<void> {
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      const answer = await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1001' } });
      if (answer.envelope?.isResultSuccess !== true) throw new Error(`unexpected answer: ${JSON.stringify(answer.body)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Serves the engine over HTTP on a free port of 127.0.0.1; returns the request URL and a stop. */
async function served(engine: Engine): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(createHttpApp(engine).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/WorkOrders/Code?Code=SO-1001`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 30);
  const erp = await startErpProcess(500);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-bench-'));
  const mapping = loadMapping(path.join(MAPPINGS_DIR, 'example.yaml'), { env: exampleEnv(erp.url) }).mapping;
  const variants = [
    { name: 'no journal (size 0)', engine: createEngine({ mappings: [mapping], outbox: 'inline', journal: createJournal({ size: 0 }) }) },
    { name: 'journal 1000, memory', engine: createEngine({ mappings: [mapping], outbox: 'inline', journal: createJournal({ size: 1000 }) }) },
    { name: 'journal 1000 + SQLite', engine: createEngine({ mappings: [mapping], outbox: 'inline', journal: createJournal({ size: 1000, store: openSqliteJournal(dir) }) }) },
  ];
  const cpu: number[][] = variants.map(() => []);
  const wall: number[][] = variants.map(() => []);
  const perSecond: number[][] = variants.map(() => []);
  const servers = HTTP ? await Promise.all(variants.map((variant) => served(variant.engine))) : [];
  const drive = async (index: number, count: number): Promise<number> => {
    if (!HTTP) {
      await batch(variants[index].engine, count);
      return count;
    }
    const summary = await runLoad({ url: servers[index].url, method: 'GET', connections: CONCURRENCY, amount: count });
    if (summary.errors > 0 || summary.non2xx > 0) throw new Error(`${variants[index].name}: ${summary.errors} errors, ${summary.non2xx} non-2xx`);
    perSecond[index].push(summary.requestsPerSecond);
    return summary.requests;
  };
  try {
    for (const [index] of variants.entries()) await drive(index, 1500); // warm-up, and a full journal
    perSecond.forEach((list) => list.splice(0));
    for (let round = 0; round < rounds; round += 1) {
      for (let turn = 0; turn < variants.length; turn += 1) {
        const index = (round + turn) % variants.length;
        const startedCpu = process.cpuUsage();
        const started = performance.now();
        const requests = await drive(index, BATCH);
        const used = process.cpuUsage(startedCpu);
        cpu[index].push((used.user + used.system) / requests);
        wall[index].push(((performance.now() - started) * 1000) / requests);
      }
    }
  } finally {
    for (const server of servers) await server.close();
    for (const variant of variants) await variant.engine.close();
    await erp.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const base = median(cpu[0]);
  console.log(`${os.cpus().length} CPUs, load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}, Node ${process.version}; ${rounds} rounds of ${BATCH} requests per variant${HTTP ? ' over HTTP' : ' through Engine.handle'}`);
  variants.forEach((variant, index) => {
    const c = median(cpu[index]);
    console.log(`${variant.name.padEnd(24)} CPU ${c.toFixed(0).padStart(5)} µs/request (${index === 0 ? 'base' : `${c >= base ? '+' : ''}${(((c - base) / base) * 100).toFixed(1)}%`})   wall ${median(wall[index]).toFixed(0).padStart(5)} µs/request${HTTP ? `   ${median(perSecond[index]).toFixed(0)} requests/s` : ''}`);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
