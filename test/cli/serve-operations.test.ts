import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { ADMIN_AUTH, ROOT, runCli, startRecordingErp, startServe, staticMapping, stoppedAfterEach, tempDir, writeFile } from './cli-process';

/**
 * `serve` as an operator runs it: real child processes, real signals, real sockets. Every load loop is
 * bounded by a request count; "zero failed requests" means every answer was a 200 envelope.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

const LABEL_PATH = '/WorkOrders/WorkOrderExternalIndexableValueLabel';

/** A request that gets no answer fails after this instead of holding the test until its own timeout. */
const ANSWER_WITHIN_MS = 10_000;

async function label(url: string): Promise<{ status: number; label?: string }> {
  const response = await fetch(`${url}${LABEL_PATH}`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  const body = (await response.json()) as { data?: { label?: string } };
  return { status: response.status, label: body.data?.label };
}

/** GET with the admin token (the admin listener asks for it; the platform's port ignores it). */
async function json(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: ADMIN_AUTH, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Polls (bounded) until `check` is true: reloads happen after a signal or a file event, not at once. A check that fails is tried again. */
async function eventually(check: () => Promise<boolean>, what: string, tries = 100): Promise<void> {
  let lastError: unknown;
  for (let attempt = 0; attempt < tries; attempt += 1) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}${lastError ? ` (last check failed: ${(lastError as Error).message})` : ''}`);
}

/** Requests to `urls` in a loop (at most `max`) until stopped; records every answer that was not a 200 envelope. */
function loadLoop(urls: () => string[], max = 3000): { stop: () => Promise<{ sent: number; failures: string[] }> } {
  let stopped = false;
  let sent = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (!stopped && sent < max) {
      for (const url of urls()) {
        sent += 1;
        try {
          const response = await fetch(`${url}${LABEL_PATH}`);
          const body = (await response.json()) as { isResultSuccess?: boolean };
          if (response.status !== 200 || body.isResultSuccess !== true) failures.push(`${url}: ${response.status}`);
        } catch (error) {
          failures.push(`${url}: ${(error as Error).message}`);
        }
      }
    }
  };
  const workers = [worker(), worker(), worker()];
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
      return { sent, failures };
    },
  };
}

describe('serve: admin listener', () => {
  it('answers live, ready, metrics after known requests and the OpenAPI document, on its own port only', async () => {
    const erp = await startRecordingErp({ articleNo: 'A-100', baseUnit: 'PCE' });
    cleanups.push(erp.close);
    const serving = await startServe(['--admin-port', '0', 'mappings/example.yaml'], { ERP_URL: erp.url });
    running.push(serving);
    const admin = serving.adminUrl as string;
    expect(new URL(admin).port).not.toBe(new URL(serving.urls[0]).port);
    expect(await json(`${admin}/health/live`)).toMatchObject({ status: 200, body: { live: true } });
    const ready = await json(`${admin}/health/ready`);
    expect(ready).toMatchObject({ status: 200, body: { ready: true, mappings: [{ mapping: 'example', serving: true, inboundAuth: 'none', warnings: [], lastReload: { ok: true } }] } });

    // GetItem caches the ERP's answers: A-100 twice is one call and one cache hit.
    for (const [index, item] of ['A-100', 'A-100', 'A-101'].entries()) await fetch(`${serving.urls[0]}/Items/${item}`, { headers: { 'x-request-id': `req-${index}` } });
    await fetch(`${serving.urls[0]}/Nowhere`);
    const metrics = await fetch(`${admin}/metrics`, { headers: ADMIN_AUTH });
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toContain('adapter_requests_total{mapping="example",operation="GetItem",result="Succeed"} 3');
    expect(text).toContain('adapter_requests_total{mapping="example",operation="",result="NotFound"} 1');
    expect(text).toMatch(/adapter_erp_calls_total\{mapping="example",call="article",status_class="2xx"\} 2/);
    expect(text).toContain('adapter_cache_lookups_total{mapping="example",call="article",outcome="hit"} 1');
    expect(text).toContain('adapter_cache_lookups_total{mapping="example",call="article",outcome="miss"} 2');
    expect(text).toMatch(/adapter_request_duration_seconds_count\{mapping="example",operation="GetItem"\} 3/);
    expect(text).toContain('adapter_mapping_last_reload_ok{mapping="example"} 1');
    expect(text).toMatch(/adapter_expression_evaluations_total\{path="fast"\} [1-9]/);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('process_resident_memory_bytes');
    expect(erp.received.map((request) => request.headers['x-request-id'])).toEqual(['req-0', 'req-2']);

    const openapi = await json(`${admin}/openapi.json`);
    expect(openapi.body).toMatchObject({ openapi: '3.1.0' });
    expect(Object.keys(openapi.body.paths as object)).toContain('/Items/{number}');
    expect((await fetch(`${serving.urls[0]}/metrics`)).status).toBe(404);
  });
});

describe('serve: reload without restart', () => {
  it('serve DIR: SIGHUP swaps a changed file, keeps the last good one for a broken file, drops a removed one, adds a new one; no request fails', async () => {
    const dir = tempDir();
    writeFile(dir, 'a.yaml', staticMapping('a', 'a-v1'));
    writeFile(dir, 'b.yaml', staticMapping('b', 'b-v1'));
    const serving = await startServe(['--admin-port', '0', dir], { LOG_LEVEL: 'error' }, 2);
    running.push(serving);
    const origin = new URL(serving.urls[0]).origin;
    const admin = serving.adminUrl as string;
    let targets = [`${origin}/a`, `${origin}/b`];
    const load = loadLoop(() => targets);
    const hup = () => serving.child.kill('SIGHUP');

    writeFile(dir, 'a.yaml', staticMapping('a', 'a-v2'));
    hup();
    await eventually(async () => (await label(`${origin}/a`)).label === 'a-v2', 'a reloaded');

    writeFile(dir, 'b.yaml', staticMapping('b', 'b-v2').replace('static:', 'statik:'));
    hup();
    await eventually(async () => {
      const ready = (await json(`${admin}/health/ready`)).body as { mappings: { mapping?: string; file: string; lastReload: { ok: boolean; problems: string[] } }[] };
      return ready.mappings.some((entry) => entry.file.endsWith('b.yaml') && !entry.lastReload.ok && entry.mapping === 'b' && /b\.yaml:\d+:\d+/.test(entry.lastReload.problems[0] ?? ''));
    }, 'b reported as not reloaded, last good one serving');
    expect(await label(`${origin}/b`)).toEqual({ status: 200, label: 'b-v1' });
    expect(await (await fetch(`${admin}/metrics`, { headers: ADMIN_AUTH })).text()).toContain('adapter_mapping_last_reload_ok{mapping="b"} 0');

    targets = [`${origin}/b`];
    fs.rmSync(path.join(dir, 'a.yaml'));
    writeFile(dir, 'c.yaml', staticMapping('c', 'c-v1'));
    hup();
    await eventually(async () => (await label(`${origin}/c`)).label === 'c-v1', 'c added');
    expect((await label(`${origin}/a`)).status).toBe(404);

    const { sent, failures } = await load.stop();
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(10);
    // The log names the file, says the last good mapping keeps serving, and gives each problem as file:line:col.
    const logLines = serving.output().stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string });
    // One line per problem (a single misspelt key here), no summary line besides.
    // One line per problem at each reload that tried the file (a single misspelt key here), no summary line besides.
    const notLoaded = logLines.map((line) => line.msg).filter((msg) => msg.includes('not loaded'));
    expect(notLoaded.length).toBeGreaterThan(0);
    for (const msg of notLoaded) expect(msg).toMatch(/^.*b\.yaml:\d+:\d+ {2}unknown setting "statik".*\(mapping file not loaded; the mapping loaded at .* keeps serving\)$/);
  });

  // With --workers the primary forks two processes, each compiling the mapping: slow on a busy 2-core machine.
  it.each([[[] as string[]], [['--workers', '2']]])('a SIGHUP sent the moment the first listening line appears reloads and the process keeps serving (Node ends a process on SIGHUP by default) %j', { timeout: 60_000 }, async (workers) => {
    const file = writeFile(tempDir(), 'only.yaml', staticMapping('only', 'first'));
    const serving = await startServe([...workers, '--admin-port', '0', file], {}, 1, { onFirstListeningLine: (child) => child.kill('SIGHUP') });
    running.push(serving);
    expect(await label(serving.urls[0])).toEqual({ status: 200, label: 'first' });
    expect(serving.child.exitCode).toBeNull();
  });

  it('--watch reloads a changed file without a signal', async () => {
    const dir = tempDir();
    const file = writeFile(dir, 'only.yaml', staticMapping('only', 'first'));
    const serving = await startServe(['--watch', file]);
    running.push(serving);
    expect(await label(serving.urls[0])).toEqual({ status: 200, label: 'first' });
    writeFile(dir, 'only.yaml', staticMapping('only', 'second'));
    await eventually(async () => (await label(serving.urls[0])).label === 'second', 'file change picked up');
  });
});

describe('serve: graceful stop', () => {
  it('SIGTERM: a slow request in flight is answered before the process exits 0; new connections are refused', async () => {
    // Every request waits until released (a probe that slipped in before the listener closed included).
    const waiting: (() => void)[] = [];
    const release = () => { for (const answer of waiting.splice(0)) answer(); };
    const slowErp = http.createServer((_req, res) => {
      waiting.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ articleNo: 'A-100', baseUnit: 'PCE' })));
    });
    await new Promise<void>((resolve) => slowErp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => { slowErp.close(() => resolve()); slowErp.closeAllConnections(); }));
    const erpUrl = `http://127.0.0.1:${(slowErp.address() as { port: number }).port}/api/v1`;
    const serving = await startServe(['--shutdown-timeout', '10000', 'mappings/example.yaml'], { ERP_URL: erpUrl });
    running.push(serving);
    const inFlight = fetch(`${serving.urls[0]}/Items/A-100`).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
    await eventually(async () => slowErp.listening && (await new Promise<number>((resolve) => slowErp.getConnections((_e, count) => resolve(count)))) > 0, 'request reached the ERP');
    await new Promise((resolve) => setTimeout(resolve, 100));
    serving.child.kill('SIGTERM');
    // A bare TCP connection, not a request: a request that slipped in before the listener closed would wait on the held ERP too.
    const refused = () => new Promise<boolean>((resolve) => {
      const socket = net.connect(Number(new URL(serving.urls[0]).port), '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(false); });
      socket.once('error', () => resolve(true));
    });
    await eventually(refused, 'new connections refused');
    release();
    expect(await inFlight).toMatchObject({ status: 200, body: { isResultSuccess: true, data: { number: 'A-100' } } });
    expect((await serving.exited).code).toBe(0);
  });
});

describe('serve: TLS', () => {
  const fixture = (name: string) => path.join(ROOT, 'test', 'fixtures', 'tls', name);
  const get = (url: string, client: { cert?: Buffer; key?: Buffer }) =>
    new Promise<number>((resolve, reject) => {
      const request = https.get(url, { ca: fs.readFileSync(fixture('ca.pem')), ...client }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
    });

  it('--tls-cert/--tls-key serve HTTPS; --tls-client-ca requires a client certificate from that CA', async () => {
    const serving = await startServe(['--tls-cert', fixture('server.pem'), '--tls-key', fixture('server.key'), '--tls-client-ca', fixture('ca.pem'), 'mappings/example.yaml'], { ERP_URL: 'http://127.0.0.1:9' });
    running.push(serving);
    expect(serving.urls[0]).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const url = `${serving.urls[0]}${LABEL_PATH}`;
    expect(await get(url, { cert: fs.readFileSync(fixture('client.pem')), key: fs.readFileSync(fixture('client.key')) })).toBe(200);
    await expect(get(url, {})).rejects.toThrow();
    await expect(get(url, { cert: fs.readFileSync(fixture('self-signed.pem')), key: fs.readFileSync(fixture('self-signed.key')) })).rejects.toThrow();
  });

  it('a key without a certificate is a usage error', async () => {
    const result = await runCli(['serve', '--tls-key', fixture('server.key'), 'mappings/example.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--tls-cert and --tls-key go together/);
  });
});

describe('serve --workers', () => {
  // Forks two workers, each compiling the mapping: slow on a busy 2-core machine.
  it('two workers share the port; metrics are summed over them; a reload reaches every worker', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const file = writeFile(dir, 'w.yaml', staticMapping('w', 'before'));
    const serving = await startServe(['--workers', '2', '--admin-port', '0', file]);
    running.push(serving);
    // It once ran into the test's timeout under the full suite, and never alone: keep what serve said.
    onTestFailed(() => console.error(`serve --workers said:\n${serving.output().stdout}\n${serving.output().stderr}`));
    const admin = serving.adminUrl as string;
    await eventually(async () => ((await json(`${admin}/health/ready`)).body as { workers?: unknown[] }).workers?.length === 2, 'both workers ready');
    for (let index = 0; index < 20; index += 1) expect((await label(serving.urls[0])).label).toBe('before');
    const text = await (await fetch(`${admin}/metrics`, { headers: ADMIN_AUTH })).text();
    expect(text).toContain('adapter_requests_total{mapping="w",operation="GetExternalIndexableValueLabel",result="Success"} 20');
    expect(text).toContain('adapter_workers 2');

    writeFile(dir, 'w.yaml', staticMapping('w', 'after'));
    serving.child.kill('SIGHUP');
    await eventually(async () => (await label(serving.urls[0])).label === 'after', 'reloaded');
    // New connections go to either worker: every answer after the reload is the new one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const labels = new Set<string | undefined>();
    for (let index = 0; index < 20; index += 1) labels.add((await fetch(`${serving.urls[0]}${LABEL_PATH}`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) }).then((r) => r.json() as Promise<{ data: { label: string } }>)).data.label);
    expect([...labels]).toEqual(['after']);
    serving.child.kill('SIGTERM');
    const exited = await Promise.race([serving.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000))]);
    expect(exited?.code, 'serve --workers stopped within 20 s of SIGTERM').toBe(0);
  });

  it('a SIGTERM while a worker still loads: it is told to stop as soon as it listens, and serve exits 0 well before its hard timeout', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const file = writeFile(dir, 'w.yaml', staticMapping('w'));
    // Worker 2 starts 1.5 s late (as on a busy machine): the stop goes out while it still loads its
    // modules, before it can hear it. The hard timeout (--shutdown-timeout + 5 s) would be 65 s.
    const late = writeFile(dir, 'late-worker.cjs', "if (require('node:cluster').worker?.id === 2) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);\n");
    const serving = await startServe(['--workers', '2', '--shutdown-timeout', '60000', file], { NODE_OPTIONS: `--require ${late}` }, 1, { onFirstListeningLine: (child) => child.kill('SIGTERM') });
    running.push(serving);
    const exited = await Promise.race([serving.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000))]);
    expect(exited?.code, 'serve --workers stopped within 20 s of SIGTERM').toBe(0);
  });
});
