/**
 * File intake at scale (issue: 200,000 order lines, about 20 MB decoded). Each variant runs in its own
 * child process so peak RSS is that variant's alone:
 *   baseline     the hand-written adapter's intake (bench/baseline): csv-parse + a grouping loop.
 *   engine-core  the engine's Engine.handle on the same input (input check, strict Base64, decoding,
 *                csv-parse, typed cells, grouping, contract check), in process.
 *   engine-http  the whole request through the Koa app over HTTP on 127.0.0.1 (body parsing and the
 *                JSON answer included); the parent sends the file, the child only serves.
 * Run: npm run bench:files   (or node dist/bench/file-intake.bench.js [lines])
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngine } from '../engine/core/engine';
import { loadMapping } from '../engine/mapping/load';
import type { Mapping } from '../engine/mapping/model';
import { MAPPINGS_DIR } from '../engine/paths';
import { createHttpApp } from '../engine/server/app';
import { workOrdersFromCsv } from './baseline/file-intake';
import { exampleEnv } from '../examples/example-env';
import { orderCsv } from './lib/order-csv';

const RUNS = 3;

/** The example mapping's file layout; no ERP is called, so its URL only has to be a URL. */
function loadBenchMapping(): Mapping {
  return loadMapping(`${MAPPINGS_DIR}/example.yaml`, { env: exampleEnv('http://127.0.0.1:9/api') }).mapping;
}

/** csv-parse + the loop anyone would write by hand (the baseline adapter's own intake): the floor. */
function baseline(fileContent: string): number {
  return workOrdersFromCsv(fileContent).length;
}

async function engineCore(fileContent: string, mapping: Mapping): Promise<number> {
  const engine = createEngine({ mappings: [mapping], http: { send: () => Promise.reject(new Error('no ERP')), close: () => undefined }, outbox: 'inline' });
  const answer = await engine.handle({ method: 'POST', path: '/WorkOrders/File', body: { fileContent, fileType: 1 } });
  await engine.close();
  const outcome = answer.outcome;
  if (!outcome) throw new Error(`engine answered ${answer.status}`);
  if (outcome.resultName !== 'Succeed') throw new Error(`engine answered ${outcome.resultName}: ${JSON.stringify(outcome.problems?.slice(0, 3))}`);
  return (outcome.data as unknown[]).length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

interface ChildReport { ms: number[]; orders: number; peakRssMb: number; firstRequestPeakRssMb?: number }

/** Child side of the in-process variants: build the input, one warm-up run, then RUNS timed runs. */
async function runInChild(variant: string, lines: number): Promise<void> {
  const fileContent = Buffer.from(orderCsv(lines)).toString('base64');
  const mapping = loadBenchMapping();
  const once = () => (variant === 'baseline' ? Promise.resolve(baseline(fileContent)) : engineCore(fileContent, mapping));
  await once();
  const ms: number[] = [];
  let orders = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    orders = await once();
    ms.push(performance.now() - started);
  }
  process.send?.({ ms, orders, peakRssMb: process.resourceUsage().maxRSS / 1024 } satisfies ChildReport, () => process.exit(0));
}

/** Child side of engine-http: serve until the parent asks for the peak RSS. */
async function serveInChild(): Promise<void> {
  const engine = createEngine({ mappings: [loadBenchMapping()], outbox: 'inline' });
  const server = http.createServer(createHttpApp(engine).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send?.({ port: (server.address() as AddressInfo).port });
  process.on('message', (message) => {
    const report = { peakRssMb: process.resourceUsage().maxRSS / 1024 };
    if (message !== 'done') {
      process.send?.(report);
      return;
    }
    server.close();
    void engine.close();
    process.send?.(report, () => process.exit(0));
  });
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
  });
}

async function measureHttp(lines: number): Promise<ChildReport> {
  const child = fork(__filename, ['--serve'], { stdio: 'inherit' });
  const { port } = await nextMessage<{ port: number }>(child);
  const body = JSON.stringify({ fileContent: Buffer.from(orderCsv(lines)).toString('base64'), fileType: 1 });
  const ms: number[] = [];
  let orders = 0;
  let firstRequestPeakRssMb = 0;
  for (let run = 0; run <= RUNS; run += 1) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/WorkOrders/File`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const envelope = (await response.json()) as { isResultSuccess: boolean; data: unknown[]; validationStatus: unknown };
    if (!envelope.isResultSuccess) throw new Error(`engine-http failed: ${JSON.stringify(envelope.validationStatus).slice(0, 500)}`);
    if (run > 0) ms.push(performance.now() - started); // run 0 warms up
    orders = envelope.data.length;
    if (run === 0) {
      child.send('rss');
      firstRequestPeakRssMb = (await nextMessage<{ peakRssMb: number }>(child)).peakRssMb;
    }
  }
  child.send('done');
  const { peakRssMb } = await nextMessage<{ peakRssMb: number }>(child);
  return { ms, orders, peakRssMb, firstRequestPeakRssMb };
}

async function main(): Promise<void> {
  const lines = Number(process.argv[2] ?? 200_000);
  const megabytes = Buffer.byteLength(orderCsv(lines)) / 1e6;
  console.log(`file intake: ${lines} order lines, ${megabytes.toFixed(1)} MB CSV decoded; median of ${RUNS} runs after a warm-up; one child process per variant`);
  const results: Record<string, ChildReport> = {};
  for (const variant of ['baseline', 'engine-core']) {
    const child = fork(__filename, ['--child', variant, String(lines)], { stdio: 'inherit' });
    results[variant] = await nextMessage<ChildReport>(child);
  }
  results['engine-http'] = await measureHttp(lines);
  for (const [variant, report] of Object.entries(results)) {
    const first = report.firstRequestPeakRssMb ? `   (peak RSS after the first request alone: ${report.firstRequestPeakRssMb.toFixed(0)} MB)` : '';
    console.log(`${variant.padEnd(12)} ${median(report.ms).toFixed(0).padStart(6)} ms   peak RSS ${report.peakRssMb.toFixed(0).padStart(4)} MB   ${report.orders} orders${first}`);
  }
  const ratio = median(results['engine-core'].ms) / median(results.baseline.ms);
  console.log(`ratio engine-core / baseline (csv-parse + hand-written grouping): ${ratio.toFixed(2)}`);
}

if (require.main !== module) {
  // imported (tests use generateCsv): run nothing
} else if (process.argv[2] === '--child') {
  runInChild(process.argv[3], Number(process.argv[4])).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else if (process.argv[2] === '--serve') {
  serveInChild().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
