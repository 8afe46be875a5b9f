import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeMappingCopies, type MappingCopies } from '../lib/mapping-copies';
import { runLoad, startProbe, startServe, timedRequest, type ServeProcess } from '../lib/processes';
import { median, spread, type Row } from '../lib/report';
import { CODE_LOOKUP, EXPORT_COLUMNS } from '../requests';
import { exampleEnv } from '../../examples/example-env';
import { EXAMPLE_MAPPING, type CaseContext, type CaseResult } from './context';

/**
 * Case 8: many customers in one process (issue 28). `adapter-engine serve <dir>` with 200 renamed copies
 * of the example mapping (each under /customer-NNN, all against the one example ERP), against the same
 * command with a directory of one copy, so both serve under a prefix and differ only in the count:
 * time from spawn to the first answer, RSS per added mapping, CPU per code lookup on one mapping, and
 * the worst wait of requests to another mapping while one file is changed and SIGHUP reloads them.
 */

const CONNECTIONS = 8;
const ADMIN_TOKEN = 'bench-admin-token';
const RELOAD_TIMEOUT_MS = 120_000;
/** 200 files on a machine whose 2 cores other jobs share took 5 to 20 s. */
const START_TIMEOUT_MS = 120_000;
const GOALS = { upMs: 3000, mbPerMapping: 1.5, cpuRatio: 1.05, stallMs: 100 };

interface Served { readonly server: ServeProcess; readonly copies: MappingCopies; readonly root: string; readonly spawnedAt: number }

/** The admin listener's /metrics as name{labels} → value. */
async function metrics(serve: ServeProcess): Promise<Map<string, number>> {
  const response = await fetch(`${serve.adminUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const values = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^(\S+) (\S+)$/.exec(line);
    if (match && !line.startsWith('#')) values.set(match[1], Number(match[2]));
  }
  return values;
}

function metric(values: Map<string, number>, key: string): number {
  const value = values.get(key);
  if (value === undefined) throw new Error(`/metrics has no ${key}`);
  return value;
}

async function expectSuccess(url: string, what: string): Promise<void> {
  const answer = await timedRequest(url, 'GET');
  if (answer.status !== 200 || (JSON.parse(answer.text) as { isResultSuccess?: boolean }).isResultSuccess !== true) {
    throw new Error(`${what}: ${answer.text.slice(0, 300)}`);
  }
}

/** `serve --admin-port 0 <dir>` with `count` copies; resolves once the last mapping answered a code lookup. */
async function serveCopies(count: number, context: CaseContext): Promise<Served & { readonly upMs: number }> {
  const copies = writeMappingCopies(EXAMPLE_MAPPING, count);
  const spawnedAt = performance.now();
  const server = await startServe(['--admin-port', '0', copies.dir], { ...exampleEnv(context.erpUrl), ADMIN_TOKENS: ADMIN_TOKEN }, { nodeArgs: context.engineNodeArgs, startTimeoutMs: START_TIMEOUT_MS })
    .catch((error: unknown) => {
      fs.rmSync(copies.dir, { recursive: true, force: true });
      throw error;
    });
  const root = new URL(server.url).origin;
  const last = copies.names[count - 1];
  await expectSuccess(`${root}/${last}${CODE_LOOKUP.path}`, `${count} mappings: the first code lookup on /${last}`);
  return { server, copies, root, spawnedAt, upMs: performance.now() - spawnedAt };
}

async function stopServed(served: Served): Promise<void> {
  await served.server.stop();
  fs.rmSync(served.copies.dir, { recursive: true, force: true });
}

/** CPU milliseconds per code lookup on the last mapping under a bounded load, from the process's own counter. */
async function cpuPerLookup(served: Served, context: CaseContext): Promise<number> {
  const name = served.copies.names[served.copies.names.length - 1];
  const before = metric(await metrics(served.server), 'process_cpu_seconds_total');
  const load = await runLoad({ url: `${served.root}/${name}${CODE_LOOKUP.path}`, method: 'GET', connections: CONNECTIONS, ...(context.quick ? { amount: 100 } : { durationS: 5 }) });
  const after = metric(await metrics(served.server), 'process_cpu_seconds_total');
  if (load.errors > 0 || load.non2xx > 0 || load.requests === 0) throw new Error(`case 8 code lookup on /${name}: ${load.errors} errors, ${load.non2xx} non-2xx of ${load.requests}`);
  return ((after - before) * 1000) / load.requests;
}

/** Changes the first mapping's file, sends SIGHUP and returns the worst and p99 wait of a probe on another mapping meanwhile. */
async function reloadStall(served: Served): Promise<{ worstMs: number; p99Ms: number; reloadMs: number }> {
  const [changed, other] = served.copies.names;
  const counter = `adapter_mapping_reloads_total{mapping="${changed}",outcome="ok"}`;
  const reloadsBefore = (await metrics(served.server)).get(counter) ?? 0;
  const probe = await startProbe({ url: `${served.root}/${other}${EXPORT_COLUMNS.path}`, pauseMs: 2, maxMs: RELOAD_TIMEOUT_MS + 10_000, maxRequests: 200_000 });
  await sleep(300);
  fs.appendFileSync(served.copies.files[0], `\n# changed at ${new Date().toISOString()}\n`);
  const signalledAt = performance.timeOrigin + performance.now();
  process.kill(served.server.pid, 'SIGHUP');
  let reloadedAt: number | undefined;
  for (const started = performance.now(); reloadedAt === undefined && performance.now() - started < RELOAD_TIMEOUT_MS; await sleep(50)) {
    if (((await metrics(served.server)).get(counter) ?? 0) > reloadsBefore) reloadedAt = performance.timeOrigin + performance.now();
  }
  await sleep(300);
  const { samples, failures } = await probe.stop();
  if (reloadedAt === undefined) throw new Error(`case 8: /${changed} was not reloaded within ${RELOAD_TIMEOUT_MS} ms of SIGHUP`);
  if (failures > 0) throw new Error(`case 8: ${failures} probe requests to /${other} failed during the reload`);
  // Every request answered after the signal and begun before the reload was seen done.
  const during = samples.filter((s) => s.startedAt + s.ms >= signalledAt && s.startedAt <= reloadedAt).map((s) => s.ms).sort((a, b) => a - b);
  if (during.length === 0) throw new Error('case 8: no probe request was answered during the reload');
  return { worstMs: during[during.length - 1], p99Ms: during[Math.min(during.length - 1, Math.ceil(0.99 * during.length) - 1)], reloadMs: reloadedAt - signalledAt };
}

export async function manyMappingsCase(context: CaseContext): Promise<CaseResult> {
  const count = context.quick ? 3 : 200;
  const repeats = context.quick ? 1 : 3;
  const name = `8 ${count} mapping files in one serve`;
  const ups: number[] = [];
  const cpu: Record<'one' | 'many', number[]> = { one: [], many: [] };
  const stalls: { worstMs: number; p99Ms: number; reloadMs: number }[] = [];
  let rss: { one: number; many: number } | undefined;
  for (let repeat = 0; repeat < repeats; repeat++) {
    const one = await serveCopies(1, context);
    let many: (Served & { readonly upMs: number }) | undefined;
    try {
      many = await serveCopies(count, context);
      ups.push(many.upMs);
      // Every customer asked once, as in production, before memory is read: first use builds connections and caches.
      for (const mapping of many.copies.names) await expectSuccess(`${many.root}/${mapping}${CODE_LOOKUP.path}`, `case 8 /${mapping}`);
      if (!context.quick) await cpuPerLookup(one, context); // warm-up of the JIT, both sides
      if (!context.quick) await cpuPerLookup(many, context);
      for (const [side, served] of (repeat % 2 === 0 ? [['one', one], ['many', many]] : [['many', many], ['one', one]]) as ['one' | 'many', Served][]) {
        cpu[side].push(await cpuPerLookup(served, context));
      }
      // Memory of the first repeat's processes, after the same load on each.
      if (rss === undefined) {
        const [a, b] = await Promise.all([metrics(one.server), metrics(many.server)]);
        rss = { one: metric(a, 'process_resident_memory_bytes') / 1e6, many: metric(b, 'process_resident_memory_bytes') / 1e6 };
      }
      stalls.push(await reloadStall(many));
      context.log(`case 8 repeat ${repeat + 1}: up ${many.upMs.toFixed(0)} ms, reload ${stalls[stalls.length - 1].reloadMs.toFixed(0)} ms, worst wait ${stalls[stalls.length - 1].worstMs.toFixed(1)} ms`);
    } finally {
      await stopServed(one);
      if (many) await stopServed(many);
    }
  }
  if (!rss) throw new Error('case 8 measured no memory');
  const perMapping = (rss.many - rss.one) / (count - 1);
  const cpuOne = median(cpu.one);
  const cpuMany = median(cpu.many);
  const worst = stalls.map((s) => s.worstMs);
  const rows: Row[] = [
    {
      id: 'many.startup', case: name, metric: 'spawn → first answer (last mapping)', unit: 'ms', better: 'lower',
      engine: median(ups), spread: { engine: spread(ups) }, goal: { text: `< ${GOALS.upMs} ms`, met: median(ups) < GOALS.upMs },
      note: `adapter-engine serve <dir> with ${count} renamed copies of the example mapping, each under /customer-NNN, all against one ERP; compared with the same command on a directory of one copy`,
    },
    { id: 'many.rss', case: name, metric: `RSS after load, ${count} mappings (1: ${rss.one.toFixed(0)} MB)`, unit: 'MB', better: 'lower', engine: rss.many },
    {
      id: 'many.rssPerMapping', case: name, metric: `RSS per mapping, (${count} − 1) ÷ ${count - 1}`, unit: 'MB', better: 'lower',
      engine: perMapping, goal: { text: `< ${GOALS.mbPerMapping} MB`, met: perMapping < GOALS.mbPerMapping },
    },
    { id: 'many.code.cpuMsPerRequest', case: name, metric: `CPU per code lookup, ${count} mappings (1: ${cpuOne.toFixed(3)} ms)`, unit: 'ms', better: 'lower', engine: cpuMany, spread: { engine: spread(cpu.many) } },
    {
      id: 'many.code.cpuRatio', case: name, metric: `CPU per code lookup, ${count} mappings ÷ 1`, unit: '×', better: 'lower',
      engine: cpuMany / cpuOne, goal: { text: `≤ ${GOALS.cpuRatio}×`, met: cpuMany / cpuOne <= GOALS.cpuRatio },
    },
    {
      id: 'many.reload.worst', case: name, metric: 'worst wait of another mapping during a SIGHUP reload', unit: 'ms', better: 'lower',
      engine: median(worst), spread: { engine: spread(worst) }, goal: { text: `< ${GOALS.stallMs} ms`, met: median(worst) < GOALS.stallMs },
      note: `one file changed, then SIGHUP (which reads every file again); a probe sends ${EXPORT_COLUMNS.path} to the second mapping one request at a time, 2 ms apart; median of ${repeats} repeat(s)`,
    },
    { id: 'many.reload.p99', case: name, metric: 'p99 wait of another mapping during the reload', unit: 'ms', better: 'lower', engine: median(stalls.map((s) => s.p99Ms)) },
    { id: 'many.reload.time', case: name, metric: 'SIGHUP → reload seen in /metrics (50 ms polls)', unit: 'ms', better: 'lower', engine: median(stalls.map((s) => s.reloadMs)) },
  ];
  return { rows, skipped: [] };
}
