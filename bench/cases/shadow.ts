import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runLoad, startServe, type ServeProcess } from '../lib/processes';
import { median, spread, type Row } from '../lib/report';
import { CODE_LOOKUP } from '../requests';
import { exampleEnv } from '../../examples/example-env';
import { EXAMPLE_MAPPING, ratio, type CaseContext, type CaseResult } from './context';

/**
 * Case 10: what a shadow candidate costs the live answers. The example served from a folder, once alone
 * and once with a candidate in shadow/ (the work order's description in capitals, so every code lookup
 * is a difference kept in the journal), under the load of case 1's code lookup (8 connections), in
 * alternating repeats. The "baseline" column is the engine without a candidate. The candidate runs
 * after each answer, skipped while the process is busier than --shadow-max-cpu-share (0.5, the
 * default); the share of requests it ran on is read from adapter_shadow_requests_total, and the CPU per
 * live request (the candidate's runs included) from process_cpu_seconds_total.
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

/** After a load run: the candidate runs queued at its end finish within this, and count with their run. */
const SETTLE_MS = 500;

export async function shadowCase(context: CaseContext): Promise<CaseResult> {
  const repeats = context.quick ? 1 : 3;
  const env = { ...exampleEnv(context.erpUrl), ADMIN_TOKENS: ADMIN_TOKEN };
  const engines = {
    without: await started(false, env),
    with: await started(true, env),
  };
  const samples = { without: { p99: [] as number[], rps: [] as number[], cpu: [] as number[] }, with: { p99: [] as number[], rps: [] as number[], cpu: [] as number[] } };
  let answered = 0;
  try {
    const load = (engine: ServeProcess) => runLoad({ url: engine.url + CODE_LOOKUP.path, method: 'GET', connections: CONNECTIONS, ...(context.quick ? { amount: 100 } : { durationS: 5 }) });
    if (!context.quick) for (const engine of [engines.without, engines.with]) await load(engine); // warm-up
    const before = await shadowRuns(engines.with);
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const side of ['without', 'with'] as const) {
        const cpuBefore = await cpuMs(engines[side]);
        const summary = await load(engines[side]);
        if (summary.errors > 0 || summary.non2xx > 0) throw new Error(`case 10 ${side} a candidate: ${summary.errors} errors, ${summary.non2xx} non-2xx`);
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        samples[side].cpu.push((await cpuMs(engines[side]) - cpuBefore) / summary.requests);
        samples[side].p99.push(summary.p99Ms);
        samples[side].rps.push(summary.requestsPerSecond);
        if (side === 'with') answered += summary.requests;
      }
    }
    // The candidate runs queued at the end of the last repeat finish after it.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ran = (await shadowRuns(engines.with)) - before;
    const row = (id: string, metric: string, unit: string, better: 'lower' | 'higher', key: 'p99' | 'rps' | 'cpu'): Row => ({
      id, case: '10 shadow candidate, GET /WorkOrders/Code', metric, unit, better,
      engine: median(samples.with[key]), baseline: median(samples.without[key]), ratio: ratio(median(samples.with[key]), median(samples.without[key])),
      spread: { engine: spread(samples.with[key]), baseline: spread(samples.without[key]) },
    });
    const rows: Row[] = [
      { ...row('shadow.p99Ms', 'p99 latency of the live answers, with a candidate', 'ms', 'lower', 'p99'), note: 'baseline column: the same engine without a candidate' },
      row('shadow.rps', 'throughput, with a candidate', 'req/s', 'higher', 'rps'),
      row('shadow.cpuMsPerRequest', 'CPU per live request (the candidate runs included), with a candidate', 'ms', 'lower', 'cpu'),
    ];
    // --quick's 100 requests are too few for the busyness gate to say anything (and may all be skipped).
    if (!context.quick) rows.push({ id: 'shadow.ranShare', case: '10 shadow candidate, GET /WorkOrders/Code', metric: 'share of the requests the candidate ran on (the rest skipped: process busier than 0.5 CPU)', unit: '×', better: 'higher', engine: answered > 0 ? ran / answered : 0 });
    context.log('case 10 done');
    return { rows, skipped: [] };
  } finally {
    await engines.without.stop();
    await engines.with.stop();
  }
}
