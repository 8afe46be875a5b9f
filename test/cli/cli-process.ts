import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { EXAMPLE_PUSH_ENV } from '../../examples/example-env';
import path from 'node:path';

/** Runs the real `adapter-engine` binary as a child process, the way integrators and scripts do. */
export const ROOT = path.resolve(__dirname, '..', '..');
export const BINARY = path.join(ROOT, 'dist', 'engine', 'cli', 'main.js');
export const EXAMPLE = path.join(ROOT, 'mappings', 'example.yaml');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The admin token every `serve` of the tests accepts (cliEnv sets ADMIN_TOKENS), and the header that sends it. */
export const ADMIN_TOKEN = 'test-admin-token-1';
export const ADMIN_AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * The environment of a test run: no colour, no inherited ERP_URL, the admin token, plus what the test sets. A test that
 * points ERP_URL at an ERP also gets the example's push settings (EXAMPLE_PUSH_ENV) unless it sets its
 * own; one without ERP_URL runs the example's own set-up (--example-erp) or checks unset variables.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // Each run keeps its outbox in a state directory of its own: two engines sharing one would deliver each other's events.
  // --example-erp's stand-ins take free ports unless the test names them: test files run side by side,
  // and two on the default 8081/8082 failed one of them at random.
  const env: NodeJS.ProcessEnv = {
    ...process.env, NO_COLOR: '1', LOG_LEVEL: 'silent', ADAPTER_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-state-')), ERP_PORT: '0', PLATFORM_PORT: '0', ADMIN_TOKENS: ADMIN_TOKEN,
    ...('ERP_URL' in extra ? EXAMPLE_PUSH_ENV : {}), ...extra,
  };
  delete env.FORCE_COLOR;
  if (!('ERP_URL' in extra)) {
    for (const name of ['ERP_URL', ...Object.keys(EXAMPLE_PUSH_ENV)]) if (!(name in extra)) delete env[name];
  }
  return env;
}

/**
 * `asInstalled` (here and in startServe): run the file itself, through its `#!` line, as `adapter-engine ...` from a shell does.
 * Else `node -- main.js`, as that line does: `--` keeps Node 20 from reading our --env-file as its own.
 */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string; asInstalled?: boolean } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = options.asInstalled ? [BINARY, args] : [process.execPath, ['--', BINARY, ...args]];
    const child = spawn(command, commandArgs, { cwd: options.cwd ?? ROOT, env: cliEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Serving {
  readonly child: ChildProcessWithoutNullStreams;
  readonly urls: string[];
  /** The admin listener's base URL, when serve was started with --admin-port. */
  readonly adminUrl?: string;
  readonly exited: Promise<CliResult>;
  /** Everything written to stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
}

/** A JSON log line of `serve` (pino): its message and fields. */
export type LogLine = { readonly level: number; readonly msg: string } & Readonly<Record<string, unknown>>;

/** The JSON log lines in `serve`'s standard output, whole lines only (a chunk may end inside one). */
export function startupLines(stdout: string): LogLine[] {
  return stdout.split('\n').filter((line) => line.startsWith('{') && line.endsWith('}')).map((line) => JSON.parse(line) as LogLine);
}

/**
 * Starts `serve` and resolves with the URLs it printed (and the admin URL with --admin-port); the
 * caller stops it with SIGTERM.
 */
export function startServe(args: readonly string[], env: Record<string, string> = {}, expectedUrls = 1, options: { onFirstListeningLine?: (child: ChildProcessWithoutNullStreams) => void; asInstalled?: boolean } = {}): Promise<Serving> {
  const [command, before] = options.asInstalled ? [BINARY, []] : [process.execPath, ['--', BINARY]];
  const child = spawn(command, [...before, 'serve', '--host', '127.0.0.1', '--port', '0', ...args], { cwd: ROOT, env: cliEnv(env) });
  const wantsAdmin = args.includes('--admin-port');
  let stdout = '';
  let stderr = '';
  let announced = false;
  const exited = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!announced && stdout.includes(' listening on ')) {
        announced = true;
        options.onFirstListeningLine?.(child);
      }
      const lines = startupLines(stdout);
      const urls = lines.filter((line) => line.msg.startsWith('adapter engine listening on ')).map((line) => String(line.url));
      const adminUrl = lines.find((line) => line.msg.startsWith('admin endpoints on '))?.url as string | undefined;
      if (urls.length >= expectedUrls && (!wantsAdmin || adminUrl)) resolve({ child, urls, adminUrl, exited, output: () => ({ stdout, stderr }) });
    });
    void exited.then((result) => reject(new Error(`serve exited with ${result.code} before listening:\n${result.stdout}\n${result.stderr}`)));
  });
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-cli-'));
}

export function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A tiny stand-in ERP on 127.0.0.1 that records what reaches it and answers 200 with a fixed body. */
export async function startRecordingErp(answer: unknown = {}): Promise<{ url: string; received: ReceivedRequest[]; close(): Promise<void> }> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    received,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/**
 * A receiver (an ERP, the platform) that answers 503 until `up()` and then records what reaches it and
 * answers 200: what the crash tests deliver to. `cleanups` gets its stop.
 */
export async function startSwitchableReceiver(cleanups: (() => Promise<void>)[]): Promise<{ url: string; up(): void; received: ReceivedRequest[] }> {
  let isUp = false;
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => {
      if (!isUp) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, up: () => { isUp = true; }, received };
}

/** Waits until `check` holds, polling every 100 ms, at most `tries` times. */
export async function eventually(check: () => boolean, what: string, tries = 300): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

/** A mapping of one static route (GET /WorkOrders/WorkOrderExternalIndexableValueLabel) whose ERP is never asked: for what serve does around requests. */
export function staticMapping(name: string, label = 'ERP id'): string {
  return `version: 1
name: ${name}
system:
  baseUrl: http://127.0.0.1:9
operations:
  GetExternalIndexableValueLabel:
    static:
      label: ${label}
`;
}

/** A stack trace line of Node: must never appear for a bad mapping or a usage error. */
export const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

/**
 * The serve processes and servers a test file starts, stopped after each test: every `serve` still
 * running gets SIGTERM and is waited for, then every cleanup runs.
 */
export function stoppedAfterEach(afterEach: (hook: () => Promise<void>, timeout?: number) => void): { running: Serving[]; cleanups: (() => Promise<void>)[] } {
  const running: Serving[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const serving of running.splice(0)) {
      if (serving.child.exitCode === null && serving.child.signalCode === null) serving.child.kill('SIGTERM');
      await serving.exited;
    }
    for (const cleanup of cleanups.splice(0)) await cleanup();
    // A process drains before it exits (--workers: each worker), slow on a busy 2-core machine.
  }, 60_000);
  return { running, cleanups };
}
