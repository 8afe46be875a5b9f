import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, runCli, startServe, startSwitchableReceiver, tempDir, stoppedAfterEach } from './cli-process';

/**
 * A push accepted (202) while the platform is down survives a SIGKILL of the engine and reaches the
 * platform once it is back, after a restart: real `serve` processes, a real SQLite outbox.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

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

describe('push endpoints across a crash', () => {
  it('pushes accepted while the platform is down are delivered after kill -9 and a restart, each once, in order per item', async () => {
    const platform = await startSwitchableReceiver(cleanups);
    const received = () => platform.received.map((request) => ({ url: request.url, body: JSON.parse(request.body) as unknown, key: String(request.headers['idempotency-key']) }));
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
    expect(new Set(received().map((request) => request.key)).size).toBe(12);
    for (const item of ['A-0', 'A-1', 'A-2']) {
      expect(received().filter((request) => request.url === `/api/v1/items/${item}/stock`).map((request) => request.body)).toEqual(sent.filter((change) => change.item === item).map((change) => ({ quantity: change.quantity })));
    }
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 90_000);
});
