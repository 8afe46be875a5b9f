/**
 * The XML parse of an ERP's answer against JSON.parse of the same data (issue 30: goal within 3x).
 * The answer is a Dynamics NAV-style ReadMultiple of 60 sales orders (bench/lib/xml-orders.ts, about
 * 100 KB); the JSON is the XML's own view (parseXml's result) as JSON text, so both give the same value.
 * Four variants in this process, each run in batches that take turns so a change in the machine's load
 * hits all of them: parseXml (decoding, saxes, the view with the mapping's lists), the same in time
 * slices as the engine reads a call's answer (parseXmlInSlices), saxes alone (the parser with namespaces
 * and empty handlers: the floor under parseXml) and JSON.parse. Time is this
 * process's CPU time (process.cpuUsage), which other processes on a shared machine do not inflate;
 * figures are medians over the rounds, per parse.
 * Run: npm run bench:xml   (or node dist/bench/xml-parse.bench.js [rounds] [orders])
 */
import { SaxesParser } from 'saxes';
import { TimeSlices } from '../engine/time-slices';
import { parseXml, parseXmlInSlices, type XmlReadOptions } from '../engine/xml/read';
import { ordersAnswer } from './lib/xml-orders';

const BATCH = 50;
const OPTIONS: XmlReadOptions = { lists: ['SalesOrder', 'Sales_Order_Line'] };

function saxesAlone(xml: string): number {
  const parser = new SaxesParser({ xmlns: true });
  let elements = 0;
  parser.on('opentag', () => { elements += 1; });
  parser.on('text', () => undefined);
  parser.write(xml).close();
  return elements;
}

/** CPU microseconds per call of `run`, over one batch; a promise `run` gives is awaited before the next call. */
async function batch(run: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  for (let index = 0; index < BATCH; index += 1) {
    const result = run();
    if (result instanceof Promise) await result;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / BATCH;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 40);
  const orders = Number(process.argv[3] ?? 60);
  const xml = Buffer.from(ordersAnswer(orders), 'utf8');
  const json = JSON.stringify(parseXml(xml, OPTIONS).result);
  const variants: [string, () => unknown][] = [
    ['parseXml', () => parseXml(xml, OPTIONS)],
    // What the engine runs on a call's answer: decoded and parsed in time slices.
    ['in slices', () => parseXmlInSlices(xml, new TimeSlices(), OPTIONS)],
    ['saxes alone', () => saxesAlone(xml.toString('utf8'))],
    ['JSON.parse', () => JSON.parse(json)],
  ];
  // Warm-up until the optimising compiler has had the code (it runs on other threads of this process).
  for (let index = 0; index < 10; index += 1) for (const [, run] of variants) await batch(run);
  const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const [name, run] of order) times.get(name)?.push(await batch(run));
  }
  const jsonMedian = median(times.get('JSON.parse') ?? []);
  console.log(`${orders} orders: XML ${(xml.length / 1024).toFixed(1)} KiB, the same data as JSON ${(json.length / 1024).toFixed(1)} KiB; ${rounds} rounds of ${BATCH}, CPU time per parse (median)`);
  for (const [name] of variants) {
    const value = median(times.get(name) ?? []);
    console.log(`  ${name.padEnd(12)} ${value.toFixed(0).padStart(6)} us   ${(value / jsonMedian).toFixed(2)}x JSON.parse`);
  }
}

void main();
