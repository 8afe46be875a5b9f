/**
 * File intake at scale (issue: 200,000 order lines, about 20 MB decoded). Each variant runs in its own
 * child process so peak RSS is that variant's alone:
 *   baseline     Base64 decode + csv-parse (arrays) + a hand-written grouping loop: the floor.
 *   engine-core  the engine's handleRequest on the same input (input check, strict Base64, decoding,
 *                csv-parse, typed cells, grouping, contract check), in process.
 *   engine-http  the whole request through the Koa app over HTTP on 127.0.0.1 (body parsing and the
 *                JSON answer included); the parent sends the file, the child only serves.
 * Run: npm run bench:files   (or node dist/bench/file-intake.bench.js [lines])
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import { findRoute } from '../engine/contract/routes';
import { contractSchemas } from '../engine/contract/schema-registry';
import { checkMappingText } from '../engine/mapping/load';
import type { Mapping } from '../engine/mapping/model';
import { handleRequest } from '../engine/pipeline/handle';
import { createApp } from '../engine/server/app';

const RUNS = 3;

const MAPPING = `
version: 1
name: bench
system: { baseUrl: "http://127.0.0.1:9" }
operations:
  ParseWorkOrderFile:
    file:
      csv:
        delimiter: ";"
        types: { qty: integer, dueDate: date }
        workOrders:
          fields: { number: orderNo, dueDate: dueDate, description: customer, deliveryNumber: shipment }
          requests: { itemNumber: article, itemName: itemName, requestedAmount: qty, lotNumber: lot }
`;

/** The test file: 5 lines per order, about 100 bytes per line. Deterministic, so every child builds the same. */
export function generateCsv(lines: number): string {
  const rows = ['orderNo;dueDate;customer;shipment;article;itemName;qty;unit;lot'];
  for (let i = 0; i < lines; i += 1) {
    const order = Math.floor(i / 5);
    rows.push(`SO-${String(order).padStart(7, '0')};2026-03-${String(1 + (order % 28)).padStart(2, '0')};Customer ${order % 977} GmbH;DN-${String(order).padStart(6, '0')};ART-${String(i % 5000).padStart(5, '0')};"Item name ${i % 5000}, blue";${1 + (i % 50)};PCE;L-${i % 300}`);
  }
  return `${rows.join('\r\n')}\r\n`;
}

function loadBenchMapping(): Mapping {
  const result = checkMappingText(MAPPING, 'bench.yaml', {});
  if (!result.mapping) throw new Error(result.issues.map((issue) => issue.message).join('\n'));
  return result.mapping;
}

/** csv-parse + the loop anyone would write by hand: the floor the engine is compared with. */
function baseline(fileContent: string): number {
  const text = Buffer.from(fileContent, 'base64').toString('utf8');
  const records = parse(text, { delimiter: ';', from_line: 2 }) as string[][];
  const orders = new Map<string, { number: string; dueDate: string; description: string; deliveryNumber: string; requests: object[] }>();
  for (const [orderNo, dueDate, customer, shipment, article, itemName, qty, , lot] of records) {
    let order = orders.get(orderNo);
    if (!order) {
      order = { number: orderNo, dueDate: `${dueDate}T00:00:00Z`, description: customer, deliveryNumber: shipment, requests: [] };
      orders.set(orderNo, order);
    }
    order.requests.push({ itemNumber: article, itemName, requestedAmount: Number(qty), lotNumber: lot || undefined });
  }
  return orders.size;
}

async function engineCore(fileContent: string, mapping: Mapping): Promise<number> {
  const route = findRoute('ParseWorkOrderFile')!;
  const schemas = contractSchemas();
  const prepared = { route, checkInput: schemas.compile(route.inputSchema!), checkData: schemas.compile(route.dataSchema!) };
  const outcome = await handleRequest(mapping, prepared, { fileContent, fileType: 1 }, [], { http: { send: () => Promise.reject(new Error('no ERP')), close: () => undefined } as never });
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
  const fileContent = Buffer.from(generateCsv(lines)).toString('base64');
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
  const app = createApp({ mapping: loadBenchMapping() });
  const server = http.createServer(app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send?.({ port: (server.address() as AddressInfo).port });
  process.on('message', (message) => {
    const report = { peakRssMb: process.resourceUsage().maxRSS / 1024 };
    if (message !== 'done') {
      process.send?.(report);
      return;
    }
    server.close();
    app.close();
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
  const body = JSON.stringify({ fileContent: Buffer.from(generateCsv(lines)).toString('base64'), fileType: 1 });
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
  const megabytes = Buffer.byteLength(generateCsv(lines)) / 1e6;
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
