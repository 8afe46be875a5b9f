import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AdapterConfig, AdapterMessage } from '../adapter-process';
import type { LoadRun, LoadSummary } from '../load-worker';
import type { ProbeMessage, ProbeRun, ProbeSample } from '../latency-probe';

/**
 * Child processes of a benchmark run: the example ERP, the adapters under measurement and the load
 * generator each get a process of their own, so each one's CPU time and memory are its own.
 */

const DIST_ROOT = path.join(__dirname, '..', '..');
const ERP_MAIN = path.join(DIST_ROOT, 'examples', 'erp', 'main.js');
const ADAPTER_MAIN = path.join(DIST_ROOT, 'bench', 'adapter-process.js');
const LOAD_MAIN = path.join(DIST_ROOT, 'bench', 'load-worker.js');
const PROBE_MAIN = path.join(DIST_ROOT, 'bench', 'latency-probe.js');
const CLI = path.join(DIST_ROOT, 'engine', 'cli', 'main.js');
const START_TIMEOUT_MS = 20_000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.connected) child.disconnect();
  else child.kill('SIGTERM');
  await withTimeout(exited(child), 5000, `stopping process ${child.pid}`).catch(() => child.kill('SIGKILL'));
}

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces), from the state on: proc(5)'s field 3 is [0]. */
function statFields(pid: number): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * The CPU time a process has used (all its threads, those ended included: SQLite, GC helpers), in ms,
 * read by Linux for it: reading it costs the process nothing. utime and stime (proc(5) fields 14 and
 * 15) in clock ticks of 10 ms (USER_HZ is 100 on Linux).
 */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The most memory the process has held resident so far (VmHWM of /proc/<pid>/status), in MB. */
export function peakRssMb(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`/proc/${pid}/status has no VmHWM`);
  return Number(match[1]) / 1024;
}

export interface ErpProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** The example ERP in its own process (`ERP_EXTRA_ORDERS` synthetic orders on top of the seed). */
export async function startErpProcess(extraOrders: number): Promise<ErpProcess> {
  const child = fork(ERP_MAIN, [], { env: { ...process.env, ERP_PORT: '0', ERP_EXTRA_ORDERS: String(extraOrders) }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const url = await withTimeout(new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (\S+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the example ERP exited with ${code} before listening`)));
  }), START_TIMEOUT_MS, 'starting the example ERP');
  // The ERP ends on SIGTERM (it ignores a closed IPC channel).
  return { url, stop: () => { child.kill('SIGTERM'); return stop(child); } };
}

interface AdapterStats {
  readonly cpuUs: number;
  readonly maxRssKb: number;
}

export interface AdapterProcess {
  readonly kind: AdapterConfig['kind'];
  /** The adapter's process id (its CPU and memory in /proc). */
  readonly pid: number;
  readonly port: number;
  /** Every mapping's port, in the order of AdapterConfig.mappings (the first is `port`). */
  readonly ports: readonly number[];
  readonly url: string;
  /** Milliseconds from spawning the process to its listening message. */
  readonly listeningAfterMs: number;
  /** performance.now() just before the spawn, for start-up measurements. */
  readonly spawnedAt: number;
  stats(): Promise<AdapterStats>;
  stop(): Promise<void>;
}

export async function startAdapter(config: AdapterConfig, nodeArgs: readonly string[] = []): Promise<AdapterProcess> {
  // What the adapter writes (the outbox's SQLite state) goes to a directory of its own, removed when it stops.
  const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-adapter-'));
  const removeTemp = () => fs.rmSync(tempRoot, { recursive: true, force: true });
  const spawnedAt = performance.now();
  const child = fork(ADAPTER_MAIN, [], { env: { ...process.env, TMPDIR: tempRoot, BENCH_ADAPTER: JSON.stringify(config) }, execArgv: [...nodeArgs], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const listening = await withTimeout(new Promise<Extract<AdapterMessage, { type: 'listening' }>>((resolve, reject) => {
    child.on('message', (message: AdapterMessage) => {
      if (message.type === 'listening') resolve(message);
    });
    child.once('exit', (code) => reject(new Error(`the ${config.kind} adapter exited with ${code} before listening`)));
  }), START_TIMEOUT_MS, `starting the ${config.kind} adapter`).catch(async (error: unknown) => {
    await stop(child);
    removeTemp();
    throw error;
  });
  const listeningAfterMs = performance.now() - spawnedAt;
  return {
    kind: config.kind,
    pid: child.pid ?? 0,
    port: listening.port,
    ports: listening.ports,
    url: `http://127.0.0.1:${listening.port}`,
    listeningAfterMs,
    spawnedAt,
    stats: () => withTimeout(new Promise<AdapterStats>((resolve) => {
      const onMessage = (message: AdapterMessage) => {
        if (message.type !== 'stats') return;
        child.off('message', onMessage);
        resolve({ cpuUs: message.cpuUserUs + message.cpuSystemUs, maxRssKb: message.maxRssKb });
      };
      child.on('message', onMessage);
      child.send({ type: 'stats' });
    }), 10_000, `reading the ${config.kind} adapter's statistics`),
    stop: async () => {
      await stop(child);
      removeTemp();
    },
  };
}

/** One bounded autocannon run in a fresh load-generator process. */
export async function runLoad(run: LoadRun): Promise<LoadSummary> {
  const child = fork(LOAD_MAIN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const bound = (run.durationS ?? 0) * 1000 + 30_000;
  try {
    return await withTimeout(new Promise<LoadSummary>((resolve, reject) => {
      child.once('message', (message: LoadSummary | { error: string }) => ('error' in message ? reject(new Error(`autocannon: ${message.error}`)) : resolve(message)));
      child.once('exit', (code) => reject(new Error(`the load generator exited with ${code} without a result`)));
      child.send(run);
    }), bound, 'the load run');
  } finally {
    await stop(child);
  }
}

export interface Probe {
  /** Ends the loop and returns every request it sent, with when it started and how long it took. */
  stop(): Promise<{ samples: ProbeSample[]; failures: number }>;
}

/** A loop of cheap requests in its own process (bench/latency-probe.ts), running until stopped. */
export async function startProbe(run: ProbeRun): Promise<Probe> {
  const child = fork(PROBE_MAIN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const result = new Promise<{ samples: ProbeSample[]; failures: number }>((resolve, reject) => {
    child.on('message', (message: ProbeMessage) => {
      if (message.type === 'samples') resolve({ samples: message.samples, failures: message.failures });
    });
    child.once('exit', (code) => reject(new Error(`the latency probe exited with ${code} without its samples`)));
  });
  result.catch(() => undefined); // awaited in stop(); an early exit must not be an unhandled rejection meanwhile
  await withTimeout(new Promise<void>((resolve) => {
    child.on('message', (message: ProbeMessage) => {
      if (message.type === 'started') resolve();
    });
    child.send(run);
  }), START_TIMEOUT_MS, 'starting the latency probe');
  return {
    stop: async () => {
      child.send({ type: 'stop' });
      try {
        return await withTimeout(result, run.maxMs + 30_000, 'the latency probe');
      } finally {
        await stop(child);
      }
    },
  };
}

export interface TimedAnswer {
  readonly ms: number;
  readonly status: number;
  readonly text: string;
}

/** One request from the harness, timed until the last byte of the answer arrived. */
export function timedRequest(url: string, method: 'GET' | 'POST', body?: string, timeoutMs = 120_000): Promise<TimedAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method,
      agent: false,
      timeout: timeoutMs,
      headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ ms: performance.now() - started, status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`${method} ${url} gave no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

export interface ServeProcess {
  /** The first URL `serve` printed (the mapping's base). */
  readonly url: string;
  /** The admin listener (/metrics), when serve was given --admin-port. */
  readonly adminUrl?: string;
  /** The process id, for signals (SIGHUP reloads the mappings). */
  readonly pid: number;
  stop(): Promise<void>;
}

/** How `startServe` starts the process: Node's flags (--cpu-prof), and how long it may take to listen. */
interface ServeOptions {
  readonly nodeArgs?: readonly string[];
  readonly startTimeoutMs?: number;
}

/**
 * Node's flags on the CLI's first line (`#!/usr/bin/env -S node --no-memory-reducer --`): the
 * `adapter-engine` command and `npm start` run Node with them, so the bench does too.
 */
function cliNodeFlags(): string[] {
  const shebang = /^#!\/usr\/bin\/env -S node((?: --[\w-]+)*) --$/m.exec(fs.readFileSync(CLI, 'utf8').split('\n', 1)[0]);
  if (!shebang) throw new Error(`${CLI}: its first line is not the expected #!/usr/bin/env -S node … --`);
  return shebang[1].split(' ').filter(Boolean);
}

/** `adapter-engine serve` as users start it, on a free port, until it prints where it listens. */
export async function startServe(args: readonly string[], env: NodeJS.ProcessEnv, options: ServeOptions = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...cliNodeFlags(), ...(options.nodeArgs ?? []), CLI, 'serve', '--host', '127.0.0.1', '--port', '0', ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const wantsAdmin = args.includes('--admin-port');
  const [url, adminUrl] = await withTimeout(new Promise<[string, string | undefined]>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (https?:\/\/\S+)/.exec(output);
      const admin = /admin endpoints on (https?:\/\/\S+)/.exec(output);
      if (match && (admin || !wantsAdmin)) resolve([match[1], admin?.[1]]);
    });
    child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening: ${output}`)));
  }), options.startTimeoutMs ?? START_TIMEOUT_MS, 'starting adapter-engine serve').catch(async (error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    url,
    adminUrl,
    pid: child.pid ?? 0,
    stop: async () => {
      child.kill('SIGTERM');
      await withTimeout(exited(child), 30_000, `stopping serve ${child.pid}`).catch(() => child.kill('SIGKILL'));
    },
  };
}
