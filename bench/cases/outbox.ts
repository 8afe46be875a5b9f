import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad, startAdapter, startServe, timedRequest, type ServeProcess } from '../lib/processes';
import { median, spread, type Row, type Skipped } from '../lib/report';
import { PUT_WALL_EVENT } from '../requests';
import { exampleEnv } from '../../examples/example-env';
import { EXAMPLE_MAPPING, ratio, type CaseContext, type CaseResult } from './context';

/**
 * Case 6: durable event delivery. Events accepted per second on POST /WorkOrders/ForPutWall by
 * `adapter-engine serve` with `delivery: outbox` (SQLite in a fresh state directory; PostgreSQL when
 * BENCH_DATABASE_URL is set), by `serve` with direct delivery (the example mapping without those lines)
 * and by the hand-written baseline (direct), from the same run; and how fast the outbox delivers the
 * backlog a load leaves. Then the delivery lag at a steady rate: from the engine's answer to the
 * arrival of that event at an ERP in this process.
 */

const CONNECTIONS = 8;
const POLL_MS = 200;
const ARRIVAL_TIMEOUT_MS = 30_000;
/** The lines of ConfirmPutWallPlacement that make it an outbox operation; removed for direct delivery. */
const OUTBOX_LINES = /^( {2}ConfirmPutWallPlacement:\n) {4}delivery: outbox\n {4}outbox: .*\n/m;
const EVENT = PUT_WALL_EVENT.body as Record<string, unknown>;

interface Variant { readonly id: string; readonly metric: string; readonly url: string; readonly adminUrl?: string; readonly store?: string }
interface Store { readonly id: string; readonly name: string; readonly env: NodeJS.ProcessEnv }

function directMapping(dir: string): string {
  const text = fs.readFileSync(EXAMPLE_MAPPING, 'utf8');
  if (!OUTBOX_LINES.test(text)) throw new Error(`${EXAMPLE_MAPPING}: ConfirmPutWallPlacement no longer starts with the "delivery: outbox" and "outbox:" lines case 6 removes for direct delivery`);
  const file = path.join(dir, 'example.yaml');
  fs.writeFileSync(file, text.replace(OUTBOX_LINES, '$1'));
  return file;
}

/** The admin listener's token of the bench's servers: /metrics needs one. */
const ADMIN_TOKEN = 'bench-admin-token';

/** `serve` with an admin listener (for the outbox gauges) and a state directory of its own. */
function serve(dir: string, mapping: string, env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  return startServe(['--admin-port', '0', '--state-dir', fs.mkdtempSync(path.join(dir, 'state-')), mapping], { ...env, ADMIN_TOKENS: ADMIN_TOKEN });
}

function expectSuccess(answer: { status: number; text: string }, what: string): void {
  if (answer.status !== 200 || (JSON.parse(answer.text) as { isResultSuccess?: boolean }).isResultSuccess !== true) throw new Error(`${what} does not succeed: ${answer.text.slice(0, 300)}`);
}

async function rps(variant: Variant, context: CaseContext): Promise<number> {
  const load = await runLoad({ url: variant.url + PUT_WALL_EVENT.path, method: 'POST', body: JSON.stringify(EVENT), connections: CONNECTIONS, ...(context.quick ? { amount: 100 } : { durationS: 5 }) });
  if (load.errors > 0 || load.non2xx > 0 || load.requests === 0) throw new Error(`case 6 ${variant.id}: ${load.errors} errors, ${load.non2xx} non-2xx of ${load.requests}`);
  return load.requestsPerSecond;
}

async function pending(variant: Variant): Promise<number> {
  const metrics = await fetch(`${variant.adminUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const value = Number(/^adapter_outbox_pending\{kind="event"\} (\S+)$/m.exec(await metrics.text())?.[1]);
  if (Number.isNaN(value)) throw new Error(`${variant.adminUrl}/metrics has no adapter_outbox_pending`);
  return value;
}

/** Events/s the outbox delivers of the backlog a load left, watched for windowMs (undefined: no backlog). */
async function drainRate(variant: Variant, windowMs: number, context: CaseContext): Promise<number | undefined> {
  const started = performance.now();
  const first = await pending(variant);
  let last = first;
  for (let i = 0; i < windowMs / POLL_MS && last > 0; i++) {
    await sleep(POLL_MS);
    last = await pending(variant);
  }
  const s = (performance.now() - started) / 1000;
  context.log(`case 6 ${variant.id}: ${first} events pending after the load, ${last} after ${s.toFixed(1)} s`);
  return first === 0 ? undefined : (first - last) / s;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Events at a fixed rate to an outbox engine whose ERP is a recorder here; ms from each answer to its arrival. */
async function deliveryLag(store: Store, dir: string, rate: number, count: number, warm: number): Promise<{ lags: number[]; missing: number }> {
  const arrivals = new Map<string, number>();
  // A key of this run's own: events an earlier run left in a shared database do not hold these up.
  const workOrderNumber = `LAG-${Date.now()}`;
  const erp = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { docNo?: string; qty?: number };
        const key = `${body.docNo}/${body.qty}`;
        if (body.docNo === workOrderNumber && !arrivals.has(key)) arrivals.set(key, at);
      } catch {
        // Not an event (no JSON body): answered all the same.
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => erp.listen(0, '127.0.0.1', resolve));
  const engine = await serve(dir, EXAMPLE_MAPPING, { ...store.env, ...exampleEnv(`http://127.0.0.1:${(erp.address() as AddressInfo).port}`) });
  try {
    const answered: number[] = [];
    const sends: Promise<void>[] = [];
    const startedAt = performance.now();
    for (let i = 0; i < warm + count; i++) {
      const wait = startedAt + (i * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
      const sentAt = performance.now();
      // completedAmount (the ERP's qty) tells the events apart; one work order, so one ordering key.
      sends.push(timedRequest(engine.url + PUT_WALL_EVENT.path, 'POST', JSON.stringify({ ...EVENT, workOrderNumber, completedAmount: i + 1 })).then((answer) => {
        expectSuccess(answer, `case 6 lag event ${i + 1}`);
        answered[i] = sentAt + answer.ms;
      }));
    }
    await Promise.all(sends);
    for (let i = 0; arrivals.size < warm + count && i < ARRIVAL_TIMEOUT_MS / 50; i++) await sleep(50);
    // An event still missing after the bound counts with its lag so far: the figure is then a lower bound.
    const end = performance.now();
    const lags = answered.slice(warm).map((at, i) => (arrivals.get(`${workOrderNumber}/${warm + i + 1}`) ?? end) - at);
    return { lags, missing: warm + count - arrivals.size };
  } finally {
    await engine.stop();
    erp.closeAllConnections();
    erp.close();
  }
}

export async function outboxCase(context: CaseContext): Promise<CaseResult> {
  const name = '6 POST /WorkOrders/ForPutWall (event)';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-outbox-'));
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  // DATABASE_URL empty: serve keeps events in SQLite even if the harness's environment names a database.
  const stores: Store[] = [{ id: 'sqlite', name: 'SQLite', env: { DATABASE_URL: '' } }];
  const skipped: Skipped[] = [];
  if (databaseUrl) stores.push({ id: 'postgres', name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl } });
  else skipped.push({ case: `${name}, delivery: outbox on PostgreSQL`, reason: 'set BENCH_DATABASE_URL=postgres://… to measure it (a fresh throwaway database per run: the engine creates its tables there, and the run leaves a backlog of events in it)' });
  const rows: Row[] = [];
  const lagRows: Row[] = [];
  const processes: { stop(): Promise<void> }[] = [];
  try {
    // The lag first, on a quiet machine and before the throughput runs leave a backlog in a shared database.
    const rate = context.quick ? 50 : 100;
    const count = context.quick ? 25 : rate * 5;
    for (const store of stores) {
      const { lags, missing } = await deliveryLag(store, dir, rate, count, context.quick ? 0 : rate);
      lags.sort((a, b) => a - b);
      const lagCase = `6 delivery lag, ${rate} events/s`;
      const note = missing > 0 ? { note: `${missing} events had not reached the ERP ${ARRIVAL_TIMEOUT_MS / 1000} s after the last was answered; their lag counts as that far, so the figures are lower bounds` } : {};
      lagRows.push(
        { id: `outbox.lag.${store.id}.p50`, case: lagCase, metric: `median, answer → ERP (${store.name})`, unit: 'ms', better: 'lower', engine: percentile(lags, 50), ...note },
        { id: `outbox.lag.${store.id}.p99`, case: lagCase, metric: `p99, answer → ERP (${store.name})`, unit: 'ms', better: 'lower', engine: percentile(lags, 99) },
      );
      context.log(`case 6 lag (${store.name}): ${count} events, max ${lags[lags.length - 1].toFixed(1)} ms`);
    }
    // Started side by side; every process that started is stopped, even when another failed.
    const started = await Promise.allSettled([
      ...stores.map((store) => serve(dir, EXAMPLE_MAPPING, { ...store.env, ...exampleEnv(context.erpUrl) })),
      serve(dir, directMapping(dir), { DATABASE_URL: '', ...exampleEnv(context.erpUrl) }),
      startAdapter({ kind: 'baseline', erpUrl: context.erpUrl, mappings: [] }),
    ]);
    for (const result of started) if (result.status === 'fulfilled') processes.push(result.value);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    const up = started.map((result) => (result as PromiseFulfilledResult<{ url: string; adminUrl?: string }>).value);
    const [direct, baseline] = up.slice(stores.length);
    const variants: Variant[] = [
      ...stores.map((store, i) => ({ id: store.id, metric: `accepted/s, delivery: outbox (${store.name})`, url: up[i].url, adminUrl: up[i].adminUrl, store: store.name })),
      { id: 'direct', metric: 'accepted/s, delivery: direct', url: direct.url },
      { id: 'baseline', metric: 'baseline', url: baseline.url },
    ];

    const samples = new Map<string, number[]>(variants.map((v) => [v.id, []]));
    const drains = new Map<string, number[]>();
    for (const variant of variants) {
      if (variant.store && (await pending(variant)) > 0) context.log(`WARNING: case 6 ${variant.id}: the store holds events an earlier run left; they are delivered alongside (use a fresh database)`);
      expectSuccess(await timedRequest(variant.url + PUT_WALL_EVENT.path, 'POST', JSON.stringify(EVENT)), `case 6 ${variant.id}`);
      if (!context.quick) await rps(variant, context); // warm-up
    }
    const repeats = context.quick ? 1 : 3;
    for (let repeat = 0; repeat < repeats; repeat++) {
      // Rotated each repeat, so that a change in the machine's load hits every variant alike.
      for (const variant of [...variants.slice(repeat), ...variants.slice(0, repeat)]) {
        samples.get(variant.id)?.push(await rps(variant, context));
        const rate = variant.store ? await drainRate(variant, context.quick ? 1000 : 5000, context) : undefined;
        if (rate !== undefined) drains.set(variant.id, [...(drains.get(variant.id) ?? []), rate]);
      }
    }
    context.log('case 6 throughput: done');
    const base = samples.get('baseline') ?? [];
    for (const variant of variants.filter((v) => v.id !== 'baseline')) {
      const values = samples.get(variant.id) ?? [];
      rows.push({
        id: `outbox.${variant.id}.rps`, case: name, metric: variant.metric, unit: 'req/s', better: 'higher',
        engine: median(values), baseline: median(base), ratio: ratio(median(values), median(base)), spread: { engine: spread(values), baseline: spread(base) },
        ...(variant === variants[0] ? { note: `${CONNECTIONS} connections, all events of one work order (one ordering key); the baseline forwards each event to the ERP while the platform waits` } : {}),
      });
      const drain = drains.get(variant.id);
      if (drain) {
        rows.push({
          id: `outbox.${variant.id}.drain`, case: name, metric: `backlog delivered after the load (${variant.store})`,
          unit: 'events/s', better: 'higher', engine: median(drain), spread: { engine: spread(drain) },
        });
      }
    }

  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { rows: [...rows, ...lagRows], skipped };
}
