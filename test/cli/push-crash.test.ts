import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startServe, tempDir, stoppedAfterEach } from './cli-process';

/**
 * A push accepted (202) while the platform is down survives a SIGKILL of the engine and reaches the
 * platform once it is back, after a restart: real `serve` processes, a real SQLite outbox.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

async function switchablePlatform(): Promise<{ url: string; up: () => void; received: { url: string; body: unknown; key: string }[] }> {
  let isUp = false;
  const received: { url: string; body: unknown; key: string }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString(); });
    req.on('end', () => {
      if (!isUp) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
      received.push({ url: req.url ?? '', body: JSON.parse(text) as unknown, key: String(req.headers['idempotency-key']) });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/integration`, up: () => { isUp = true; }, received };
}

const MAPPING = `version: 1
name: pushes
system:
  baseUrl: http://127.0.0.1:9/erp
operations: {}
platform:
  baseUrl: \${PLATFORM_URL}
  timeoutMs: 2000
push:
  StockChange:
    auth: { type: apiKey, keys: ["\${ERP_PUSH_KEY}"] }
    schema: { type: object, required: [changeId, item, quantity] }
    idempotencyKey: input.changeId
    outbox: { orderingKey: input.item }
    calls:
      - name: stock
        method: PUT
        path: /items/{input.item}/stock
        body: '{ "quantity": input.quantity }'
`;

async function eventually(check: () => boolean, what: string, tries = 300): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

describe('push endpoints across a crash', () => {
  it('pushes accepted while the platform is down are delivered after kill -9 and a restart, each once, in order per item', async () => {
    const platform = await switchablePlatform();
    const stateDir = tempDir();
    const file = path.join(tempDir(), 'pushes.yaml');
    fs.writeFileSync(file, MAPPING);
    const env = { PLATFORM_URL: platform.url, ERP_PUSH_KEY: 'push-key' };
    const first = await startServe(['--state-dir', stateDir, file], env);
    running.push(first);
    const sent: { item: string; quantity: number }[] = [];
    for (let index = 1; index <= 12; index += 1) {
      const change = { changeId: `C-${index}`, item: `A-${index % 3}`, quantity: index };
      const response = await fetch(`${first.urls[0]}/push/StockChange`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'push-key' }, body: JSON.stringify(change) });
      expect(response.status).toBe(202);
      sent.push(change);
    }
    // A resend before the crash is accepted and not stored again.
    const resend = await fetch(`${first.urls[0]}/push/StockChange`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'push-key' }, body: JSON.stringify({ changeId: 'C-1', item: 'A-1', quantity: 1 }) });
    expect(await resend.json()).toMatchObject({ duplicate: true });
    first.child.kill('SIGKILL');
    expect((await first.exited).code).toBeNull();

    const pending = await runCli(['outbox', 'list', '--state-dir', stateDir, '--kind', 'push', '--json']);
    expect((JSON.parse(pending.stdout) as { kind: string; operation: string }[]).map((event) => [event.kind, event.operation])).toEqual(Array(12).fill(['push', 'StockChange']));

    platform.up();
    const second = await startServe(['--state-dir', stateDir, file], env);
    running.push(second);
    await eventually(() => platform.received.length >= 12, 'all 12 pushes delivered');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(platform.received).toHaveLength(12);
    expect(new Set(platform.received.map((request) => request.key)).size).toBe(12);
    for (const item of ['A-0', 'A-1', 'A-2']) {
      expect(platform.received.filter((request) => request.url === `/integration/items/${item}/stock`).map((request) => request.body)).toEqual(sent.filter((change) => change.item === item).map((change) => ({ quantity: change.quantity })));
    }
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 90_000);
});
