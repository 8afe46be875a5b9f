import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { postgresUnavailable, startPostgres, type PgServer } from '../lib/postgres-server';
import { runLoad, startServe, timedRequest, type ServeProcess } from '../lib/processes';
import type { Row, Skipped } from '../lib/report';
import { PUT_WALL_EVENT } from '../requests';
import { EXAMPLE_PUSH_ENV } from '../../examples/example-env';
import { EXAMPLE_MAPPING, type CaseContext, type CaseResult } from './context';

/**
 * Case 9: two `serve` replicas on one PostgreSQL (DATABASE_URL), the setup of docs/operations.md's
 * replicas. A bounded load of events (POST /WorkOrders/ForPutWall, `delivery: outbox`, 16 work orders so
 * 16 ordering keys) goes to one replica; both deliver from the shared outbox to an ERP that records
 * arrivals in this process. Beside the load, tagged events at a fixed rate give the time from each
 * event's answer to its arrival at the ERP. The database is BENCH_DATABASE_URL (a fresh throwaway one)
 * or a throwaway server started here; without either the case is skipped.
 */

const CONNECTIONS = 8;
const WORK_ORDERS = 16;
const TAGGED_PER_S = 20;
const ARRIVAL_TIMEOUT_MS = 60_000;
const ADMIN_TOKEN = 'bench-admin-token';
const EVENT = PUT_WALL_EVENT.body as Record<string, unknown>;
const NAME = '9 two serve replicas on one PostgreSQL';

interface Arrival { readonly key: string; readonly at: number }
interface Recorder { readonly url: string; readonly arrivals: Arrival[]; close(): void }

/** The ERP: answers every call at once and notes each event (docNo/qty) and when it arrived. */
async function recordingErp(): Promise<Recorder> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { docNo?: string; qty?: number };
        arrivals.push({ key: `${body.docNo}/${body.qty}`, at });
      } catch {
        // Not an event (no JSON body): answered all the same.
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Events delivered by a replica (its own counter on its admin listener). */
async function delivered(replica: ServeProcess): Promise<number> {
  const text = await (await fetch(`${replica.adminUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  return [...text.matchAll(/^adapter_outbox_deliveries_total\{[^}]*kind="event"[^}]*outcome="delivered"[^}]*\} (\S+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Tagged events at TAGGED_PER_S while `running()`; the answer time of each, by its key. */
async function taggedEvents(url: string, tag: string, running: () => boolean): Promise<Map<string, number>> {
  const answered = new Map<string, number>();
  const sends: Promise<void>[] = [];
  const startedAt = performance.now();
  for (let i = 0; running(); i++) {
    const wait = startedAt + (i * 1000) / TAGGED_PER_S - performance.now();
    if (wait > 0) await sleep(wait);
    const qty = i + 1;
    sends.push(timedRequest(url + PUT_WALL_EVENT.path, 'POST', JSON.stringify({ ...EVENT, workOrderNumber: tag, completedAmount: qty })).then((answer) => {
      if (answer.status !== 200) throw new Error(`case 9 tagged event ${qty}: ${answer.text.slice(0, 300)}`);
      answered.set(`${tag}/${qty}`, performance.now());
    }));
  }
  await Promise.all(sends);
  return answered;
}

async function measure(database: string, dir: string, context: CaseContext): Promise<Row[]> {
  const erp = await recordingErp();
  const env = { ERP_URL: erp.url, ...EXAMPLE_PUSH_ENV, DATABASE_URL: database, ADMIN_TOKENS: ADMIN_TOKEN };
  const replicas: ServeProcess[] = [];
  try {
    for (let i = 0; i < 2; i++) replicas.push(await startServe(['--admin-port', '0', '--state-dir', fs.mkdtempSync(path.join(dir, 'state-')), EXAMPLE_MAPPING], env, { nodeArgs: context.engineNodeArgs }));
    const [front] = replicas;
    // A run of its own: events an earlier run left in a shared database are not counted.
    const run = `R${Date.now()}`;
    const bodies = Array.from({ length: WORK_ORDERS }, (_, i) => JSON.stringify({ ...EVENT, workOrderNumber: `${run}-${i + 1}` }));
    let loading = true;
    const tagged = taggedEvents(front.url, `${run}-LAG`, () => loading);
    const loadStarted = performance.now();
    const load = await runLoad({ url: front.url + PUT_WALL_EVENT.path, method: 'POST', bodies, connections: CONNECTIONS, ...(context.quick ? { amount: 100 } : { durationS: 5 }) }).finally(() => { loading = false; });
    const answered = await tagged;
    if (load.errors > 0 || load.non2xx > 0 || load.requests === 0) throw new Error(`case 9: ${load.errors} errors, ${load.non2xx} non-2xx of ${load.requests}`);
    // Every event of this run, the load's and the tagged ones, has reached the ERP (or the bound passed).
    const expected = load.requests + answered.size;
    const ours = () => erp.arrivals.filter((arrival) => arrival.key.startsWith(`${run}-`));
    const waitStarted = performance.now();
    const taggedArrived = () => new Set(erp.arrivals.filter((arrival) => answered.has(arrival.key)).map((arrival) => arrival.key)).size;
    while ((ours().length < expected || taggedArrived() < answered.size) && performance.now() - waitStarted < ARRIVAL_TIMEOUT_MS) await sleep(50);
    const arrived = ours();
    const firstAt = new Map<string, number>();
    for (const { key, at } of arrived) if (!firstAt.has(key)) firstAt.set(key, at);
    const counts = await Promise.all(replicas.map(delivered));
    const lastArrival = Math.max(...arrived.map((arrival) => arrival.at));
    const lags = [...answered].map(([key, at]) => (firstAt.get(key) ?? performance.now()) - at).sort((a, b) => a - b);
    const missing = [...answered.keys()].filter((key) => !firstAt.has(key)).length;
    context.log(`case 9: ${load.requests} + ${answered.size} tagged events accepted in ${load.durationS.toFixed(1)} s, ${arrived.length} arrived (delivered by the replicas: ${counts.join(' + ')}), ${missing} tagged missing`);
    return [
      {
        id: 'replicas.pg.accepted', case: NAME, metric: 'events accepted/s by one replica', unit: 'events/s', better: 'higher', engine: load.requestsPerSecond,
        note: `${CONNECTIONS} connections to one replica, events of ${WORK_ORDERS} work orders (ordering keys) plus ${TAGGED_PER_S} tagged events/s; both replicas deliver from the one outbox to an ERP in the harness that answers at once`,
      },
      { id: 'replicas.pg.delivered', case: NAME, metric: `events delivered/s by both (${counts.map((c) => Math.round(c)).join(' + ')})`, unit: 'events/s', better: 'higher', engine: (arrived.length * 1000) / (lastArrival - loadStarted) },
      { id: 'replicas.pg.lag.p50', case: NAME, metric: 'median, answer → ERP, under the load', unit: 'ms', better: 'lower', engine: percentile(lags, 50), ...(missing > 0 ? { note: `${missing} tagged events had not arrived ${ARRIVAL_TIMEOUT_MS / 1000} s after the load; their lag counts as that far` } : {}) },
      { id: 'replicas.pg.lag.p99', case: NAME, metric: 'p99, answer → ERP, under the load', unit: 'ms', better: 'lower', engine: percentile(lags, 99) },
    ];
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
    erp.close();
  }
}

export async function replicasCase(context: CaseContext): Promise<CaseResult> {
  const given = process.env.BENCH_DATABASE_URL;
  const unavailable = given ? undefined : postgresUnavailable();
  const skipped: Skipped[] = [];
  if (unavailable !== undefined) {
    skipped.push({ case: NAME, reason: `no PostgreSQL: set BENCH_DATABASE_URL=postgres://… (a fresh throwaway database) or install the server binaries (${unavailable})` });
    return { rows: [], skipped };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-replicas-'));
  let server: PgServer | undefined;
  try {
    server = given ? undefined : await startPostgres();
    const database = given ?? server?.url;
    if (database === undefined) throw new Error('case 9: the throwaway PostgreSQL server did not start');
    const rows = await measure(database, dir, context);
    context.log('case 9 replicas: done');
    return { rows, skipped };
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
