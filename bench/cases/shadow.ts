import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadSummary } from '../load-worker';
import { runLoad, startServe, type ServeProcess } from '../lib/processes';
import { median, spread, type Row } from '../lib/report';
import { CODE_LOOKUP } from '../requests';
import { exampleEnv } from '../../examples/example-env';
import { EXAMPLE_MAPPING, ratio, type CaseContext, type CaseResult } from './context';

/**
 * Case 10: what a shadow candidate costs the live answers. The example served from a folder, once alone
 * and once with a candidate in shadow/ (the work order's description in capitals, so every code lookup
 * is a difference), under three loads of case 1's code lookup, each in alternating repeats: 8
 * connections as fast as the engine answers (the candidate is mostly skipped); 300 req/s evenly paced
 * (one request every 3.3 ms: the candidate runs between them, on nearly every request); and 300 req/s
 * as autocannon paces it, each second's requests at its start (a burst of ~150 ms, then a pause: 64
 * of the candidate's runs wait for the pause, the rest are skipped). The "baseline" column is the engine without a candidate. The
 * share of requests the candidate ran on is read from adapter_shadow_requests_total, and the CPU per
 * live request (the candidate's runs, in their own thread, included) from process_cpu_seconds_total.
 */

const CONNECTIONS = 8;
const ADMIN_TOKEN = 'bench-admin-token';

function servedFolder(withCandidate: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-shadow-${withCandidate ? 'with' : 'without'}-`));
  const mapping = fs.readFileSync(EXAMPLE_MAPPING, 'utf8');
  fs.writeFileSync(path.join(dir, 'example.yaml'), mapping);
  if (withCandidate) {
    fs.mkdirSync(path.join(dir, 'shadow'));
    fs.writeFileSync(path.join(dir, 'shadow', 'example.yaml'), mapping.replace('"description": $o.headerText,', '"description": $uppercase($o.headerText),'));
  }
  return dir;
}

/** Each engine with a state directory of its own: two servers must not share one (they would deliver each other's events). */
function started(withCandidate: boolean, env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const dir = servedFolder(withCandidate);
  return startServe(['--admin-port', '0', '--state-dir', `${dir}-state`, dir], env);
}

async function metricsText(engine: ServeProcess): Promise<string> {
  return (await fetch(`${engine.adminUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
}

async function shadowRuns(engine: ServeProcess): Promise<number> {
  return [...(await metricsText(engine)).matchAll(/^adapter_shadow_requests_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** The process's CPU so far (prom-client's process_cpu_seconds_total), in ms: the candidate runs' CPU lands here too. */
async function cpuMs(engine: ServeProcess): Promise<number> {
  const match = /^process_cpu_seconds_total (\S+)/m.exec(await metricsText(engine));
  if (!match) throw new Error('case 10: the engine\'s /metrics has no process_cpu_seconds_total');
  return Number(match[1]) * 1000;
}

/**
 * The CPU the engine's main thread (the live requests' thread, whose id is the process's) has used, in
 * ms, from /proc: the candidate's runs, in a thread of their own, are not in it. Clock ticks of 10 ms.
 */
function liveThreadCpuMs(engine: ServeProcess): number {
  const stat = fs.readFileSync(`/proc/${engine.pid}/task/${engine.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** After a load run: the candidate runs queued at its end finish within this, and count with their run (not with --quick, whose figures mean nothing). */
const SETTLE_MS = 500;

/** A moderate load, well below saturation: the candidate runs on (nearly) every request. */
const PACED_RATE = 300;

interface Samples { readonly p99: number[]; readonly rps: number[]; readonly cpu: number[]; readonly liveCpu: number[] }

interface Measured {
  readonly samples: { readonly without: Samples; readonly with: Samples };
  /** Share of the with-candidate requests the candidate ran on. */
  readonly ranShare: number;
}

/** Alternating repeats of one load on the engine without and with a candidate. */
async function alternate(engines: Record<'without' | 'with', ServeProcess>, load: (engine: ServeProcess) => Promise<LoadSummary>, repeats: number, settleMs: number): Promise<Measured> {
  const samples = { without: { p99: [], rps: [], cpu: [], liveCpu: [] } as Samples, with: { p99: [], rps: [], cpu: [], liveCpu: [] } as Samples };
  let answered = 0;
  const before = await shadowRuns(engines.with);
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const side of ['without', 'with'] as const) {
      const cpuBefore = await cpuMs(engines[side]);
      const liveBefore = liveThreadCpuMs(engines[side]);
      const summary = await load(engines[side]);
      if (summary.errors > 0 || summary.non2xx > 0) throw new Error(`case 10 ${side} a candidate: ${summary.errors} errors, ${summary.non2xx} non-2xx`);
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      samples[side].cpu.push((await cpuMs(engines[side]) - cpuBefore) / summary.requests);
      samples[side].liveCpu.push((liveThreadCpuMs(engines[side]) - liveBefore) / summary.requests);
      samples[side].p99.push(summary.p99Ms);
      samples[side].rps.push(summary.requestsPerSecond);
      if (side === 'with') answered += summary.requests;
    }
  }
  return { samples, ranShare: answered > 0 ? ((await shadowRuns(engines.with)) - before) / answered : 0 };
}

function rowsOf(measured: Measured, load: string, idPrefix: string, paced: boolean): Row[] {
  const { samples } = measured;
  const caseName = `10 shadow candidate, GET /WorkOrders/Code, ${load}`;
  const row = (id: string, metric: string, unit: string, better: 'lower' | 'higher', key: keyof Samples): Row => ({
    id: `${idPrefix}.${id}`, case: caseName, metric, unit, better,
    engine: median(samples.with[key]), baseline: median(samples.without[key]), ratio: ratio(median(samples.with[key]), median(samples.without[key])),
    spread: { engine: spread(samples.with[key]), baseline: spread(samples.without[key]) },
  });
  return [
    { ...row('p99Ms', 'p99 latency of the live answers, with a candidate', 'ms', 'lower', 'p99'), note: 'baseline column: the same engine without a candidate' },
    // A paced load's throughput is its pace.
    ...(paced ? [] : [row('rps', 'throughput, with a candidate', 'req/s', 'higher', 'rps')]),
    row('cpuMsPerRequest', 'CPU per live request (the candidate runs included), with a candidate', 'ms', 'lower', 'cpu'),
    row('liveThreadCpuMsPerRequest', 'CPU of the live requests\' thread per request, with a candidate', 'ms', 'lower', 'liveCpu'),
    { id: `${idPrefix}.ranShare`, case: caseName, metric: 'share of the requests the candidate ran on (the rest skipped: 64 runs waiting)', unit: '×', better: 'higher', engine: measured.ranShare },
  ];
}

export async function shadowCase(context: CaseContext): Promise<CaseResult> {
  const repeats = context.quick ? 1 : 5;
  const settleMs = context.quick ? 0 : SETTLE_MS;
  const env = { ...exampleEnv(context.erpUrl), ADMIN_TOKENS: ADMIN_TOKEN };
  const engines = {
    without: await started(false, env),
    with: await started(true, env),
  };
  try {
    const span = context.quick ? { amount: 100 } : { durationS: 5 };
    const saturating = (engine: ServeProcess) => runLoad({ url: engine.url + CODE_LOOKUP.path, method: 'GET', connections: CONNECTIONS, ...span });
    const paced = (engine: ServeProcess) => runLoad({ url: engine.url + CODE_LOOKUP.path, method: 'GET', connections: 4, rate: PACED_RATE, spacing: 'even', ...span });
    const bursts = (engine: ServeProcess) => runLoad({ url: engine.url + CODE_LOOKUP.path, method: 'GET', connections: 4, rate: PACED_RATE, ...span });
    if (!context.quick) for (const engine of [engines.without, engines.with]) await saturating(engine); // warm-up
    const rows = [
      ...rowsOf(await alternate(engines, saturating, repeats, settleMs), `${CONNECTIONS} connections, as fast as it answers`, 'shadow', false),
      ...rowsOf(await alternate(engines, paced, repeats, settleMs), `${PACED_RATE} req/s evenly paced`, 'shadow.paced', true),
      ...rowsOf(await alternate(engines, bursts, repeats, settleMs), `${PACED_RATE} req/s in a burst at the start of each second`, 'shadow.bursts', true),
    ];
    context.log('case 10 done');
    return { rows, skipped: [] };
  } finally {
    await engines.without.stop();
    await engines.with.stop();
  }
}
