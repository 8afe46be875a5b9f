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
interface Started extends Served { readonly upMs: number; readonly upCpuMs?: number }

/**
 * The CPU a process used since it started (Linux's /proc; undefined elsewhere): what the start-up costs
 * whatever else the machine runs. prom-client's process_cpu_seconds_total counts only from its own start.
 */
function cpuMsOf(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks of 10 ms (USER_HZ 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

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
async function serveCopies(count: number, context: CaseContext): Promise<Started> {
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
  const upMs = performance.now() - spawnedAt;
  const upCpuMs = cpuMsOf(server.pid);
  return { server, copies, root, spawnedAt, upMs, upCpuMs };
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

interface Window { readonly worstMs: number; readonly p99Ms: number; readonly loopDelayMs: number }
interface Stall { readonly reload: Window; readonly quiet: Window; readonly reloadMs: number }

const QUIET_MS = 2000;
const LOOP_DELAY = 'nodejs_eventloop_lag_max_seconds';

function windowOf(samples: readonly { startedAt: number; ms: number }[], from: number, to: number, loopDelayMs: number): Window {
  // Every request answered after `from` and begun before `to`.
  const waits = samples.filter((s) => s.startedAt + s.ms >= from && s.startedAt <= to).map((s) => s.ms).sort((a, b) => a - b);
  if (waits.length === 0) throw new Error('case 8: no probe request was answered in a window');
  return { worstMs: waits[waits.length - 1], p99Ms: waits[Math.min(waits.length - 1, Math.ceil(0.99 * waits.length) - 1)], loopDelayMs };
}

/**
 * A probe sends cheap requests to the second mapping: first for QUIET_MS with nothing else going on (what
 * the busy machine alone costs), then while the first mapping's file is changed and SIGHUP reloads it.
 * The server's own longest event-loop delay (prom-client's, reset at each read of /metrics) is read
 * every 50 ms through both windows.
 */
async function reloadStall(served: Served): Promise<Stall> {
  const [changed, other] = served.copies.names;
  const counter = `adapter_mapping_reloads_total{mapping="${changed}",outcome="ok"}`;
  const reloadsBefore = (await metrics(served.server)).get(counter) ?? 0;
  const probe = await startProbe({ url: `${served.root}/${other}${EXPORT_COLUMNS.path}`, pauseMs: 2, maxMs: QUIET_MS + RELOAD_TIMEOUT_MS + 10_000, maxRequests: 500_000 });
  const now = () => performance.timeOrigin + performance.now();
  let quietDelay = 0;
  const quietFrom = now();
  while (now() - quietFrom < QUIET_MS) {
    quietDelay = Math.max(quietDelay, metric(await metrics(served.server), LOOP_DELAY) * 1000);
    await sleep(50);
  }
  fs.appendFileSync(served.copies.files[0], `\n# changed at ${new Date().toISOString()}\n`);
  const signalledAt = now();
  process.kill(served.server.pid, 'SIGHUP');
  let reloadedAt: number | undefined;
  let reloadDelay = 0;
  while (reloadedAt === undefined && now() - signalledAt < RELOAD_TIMEOUT_MS) {
    const values = await metrics(served.server);
    reloadDelay = Math.max(reloadDelay, metric(values, LOOP_DELAY) * 1000);
    if ((values.get(counter) ?? 0) > reloadsBefore) reloadedAt = now();
    else await sleep(50);
  }
  const { samples, failures } = await probe.stop();
  if (reloadedAt === undefined) throw new Error(`case 8: /${changed} was not reloaded within ${RELOAD_TIMEOUT_MS} ms of SIGHUP`);
  if (failures > 0) throw new Error(`case 8: ${failures} probe requests to /${other} failed`);
  return { quiet: windowOf(samples, quietFrom, signalledAt, quietDelay), reload: windowOf(samples, signalledAt, reloadedAt, reloadDelay), reloadMs: reloadedAt - signalledAt };
}

export async function manyMappingsCase(context: CaseContext): Promise<CaseResult> {
  const count = context.quick ? 3 : 200;
  const repeats = context.quick ? 1 : 3;
  const name = `8 ${count} mapping files in one serve`;
  const ups: number[] = [];
  const upCpu: Record<'one' | 'many', number[]> = { one: [], many: [] };
  const cpu: Record<'one' | 'many', number[]> = { one: [], many: [] };
  const stalls: Stall[] = [];
  let rss: { one: number; many: number } | undefined;
  for (let repeat = 0; repeat < repeats; repeat++) {
    const one = await serveCopies(1, context);
    let many: Started | undefined;
    try {
      many = await serveCopies(count, context);
      ups.push(many.upMs);
      if (one.upCpuMs !== undefined && many.upCpuMs !== undefined) {
        upCpu.one.push(one.upCpuMs);
        upCpu.many.push(many.upCpuMs);
      }
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
      context.log(`case 8 repeat ${repeat + 1}: up ${many.upMs.toFixed(0)} ms, reload ${stalls[stalls.length - 1].reloadMs.toFixed(0)} ms, worst wait ${stalls[stalls.length - 1].reload.worstMs.toFixed(1)} ms (${stalls[stalls.length - 1].quiet.worstMs.toFixed(1)} ms before it)`);
    } finally {
      await stopServed(one);
      if (many) await stopServed(many);
    }
  }
  if (!rss) throw new Error('case 8 measured no memory');
  const perMapping = (rss.many - rss.one) / (count - 1);
  const cpuOne = median(cpu.one);
  const cpuMany = median(cpu.many);
  const worst = stalls.map((s) => s.reload.worstMs);
  const quietWorst = stalls.map((s) => s.quiet.worstMs);
  const cpuRows: Row[] = upCpu.many.length === 0 ? [] : [
    { id: 'many.startup.cpu', case: name, metric: `serve's CPU until that answer (1 mapping: ${median(upCpu.one).toFixed(0)} ms)`, unit: 'ms', better: 'lower', engine: median(upCpu.many), spread: { engine: spread(upCpu.many) } },
    { id: 'many.startup.cpuPerMapping', case: name, metric: `start-up CPU per mapping, (${count} − 1) ÷ ${count - 1}`, unit: 'ms', better: 'lower', engine: (median(upCpu.many) - median(upCpu.one)) / (count - 1) },
  ];
  const rows: Row[] = [
    {
      id: 'many.startup', case: name, metric: 'spawn → first answer (last mapping)', unit: 'ms', better: 'lower',
      engine: median(ups), spread: { engine: spread(ups) }, goal: { text: `< ${GOALS.upMs} ms`, met: median(ups) < GOALS.upMs },
      note: `adapter-engine serve <dir> with ${count} renamed copies of the example mapping, each under /customer-NNN, all against one ERP; compared with the same command on a directory of one copy`,
    },
    ...cpuRows,
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
      note: `one file changed, then SIGHUP; a probe process sends ${EXPORT_COLUMNS.path} to the second mapping one request at a time, 2 ms apart, for ${QUIET_MS / 1000} s before the signal (the machine's own noise) and until the reload shows in /metrics; medians of ${repeats} repeat(s)`,
    },
    { id: 'many.reload.p99', case: name, metric: 'p99 wait of another mapping during the reload', unit: 'ms', better: 'lower', engine: median(stalls.map((s) => s.reload.p99Ms)) },
    { id: 'many.reload.quietWorst', case: name, metric: `worst wait in the ${QUIET_MS / 1000} s before the signal`, unit: 'ms', better: 'lower', engine: median(quietWorst), spread: { engine: spread(quietWorst) } },
    { id: 'many.reload.loopDelay', case: name, metric: 'longest event-loop delay in serve during the reload', unit: 'ms', better: 'lower', engine: median(stalls.map((s) => s.reload.loopDelayMs)) },
    { id: 'many.reload.quietLoopDelay', case: name, metric: 'longest event-loop delay in serve before the signal', unit: 'ms', better: 'lower', engine: median(stalls.map((s) => s.quiet.loopDelayMs)) },
    { id: 'many.reload.time', case: name, metric: 'SIGHUP → reload seen in /metrics (50 ms polls)', unit: 'ms', better: 'lower', engine: median(stalls.map((s) => s.reloadMs)) },
  ];
  return { rows, skipped: [] };
}
