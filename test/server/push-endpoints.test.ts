import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import type { OutboxStore } from '../../engine/outbox/store';
import { createMetrics } from '../../engine/server/metrics';
import { startRecordingErp } from '../cli/cli-process';
import { startEngine, type RunningEngine } from '../support/engine';

/**
 * Push endpoints served over real HTTP, stored in a real SQLite outbox and delivered to a recording
 * stand-in of the platform: each auth kind (wrong and replayed signatures too), invalid payloads (400,
 * every problem, nothing stored), resends forwarded once, 1,000 orders fanned out in order.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ENV = { ERP_PUSH_KEY: 'push-key-1', ERP_PUSH_PASSWORD: 'pw-1', ERP_PUSH_SECRET: 'hmac-secret-1' };

const ORDER_SCHEMA = `{ type: object, required: [orderNo, version, lines], properties: { orderNo: { type: string }, version: { type: integer }, lines: { type: array, minItems: 1 } } }`;

function mappingText(platformUrl: string): string {
  return `version: 1
name: push-test
system:
  baseUrl: http://127.0.0.1:9/erp
operations: {}
platform:
  baseUrl: ${platformUrl}
  timeoutMs: 2000
push:
  NewOrder:
    auth: { type: apiKey, keys: ["\${ERP_PUSH_KEY}"] }
    schema: ${ORDER_SCHEMA}
    rules:
      - expect: $count(input.lines[qty > 0]) = $count(input.lines)
        message: "order {input.orderNo}: every line needs a quantity above 0"
    idempotencyKey: input.orderNo & "/" & $string(input.version)
    transform: '{ "number": record.orderNo, "requests": [record.lines.{ "itemNumber": item, "requestedAmount": qty }] }'
    calls:
      - name: create
        method: POST
        path: /work-orders
        body: input
  CancelLine:
    auth: { type: basic, users: [{ username: erp, password: "\${ERP_PUSH_PASSWORD}" }] }
    schema: { type: object, required: [orderNo, line] }
    idempotencyKey: input.orderNo & "/" & $string(input.line)
    calls:
      - name: cancel
        method: POST
        path: /work-orders/{input.orderNo}/cancellations
        body: '{ "line": input.line }'
  StockChange:
    auth: { type: hmac, secrets: ["\${ERP_PUSH_SECRET}"], prefix: "sha256=" }
    schema: { type: object, required: [changeId, item, quantity] }
    idempotencyKey: input.changeId
    calls:
      - name: stock
        method: PUT
        path: /items/{input.item}/stock
        body: '{ "quantity": input.quantity }'
  Orders:
    auth: { type: apiKey, keys: ["\${ERP_PUSH_KEY}"] }
    schema: { type: object, required: [batchId, orders] }
    idempotencyKey: input.batchId
    records: input.orders
    transform: '{ "number": record.orderNo, "position": index }'
    calls:
      - name: create
        method: POST
        path: /work-orders
        body: input
  OrdersInBatches:
    auth: { type: apiKey, keys: ["\${ERP_PUSH_KEY}"] }
    schema: { type: object, required: [batchId, orders] }
    idempotencyKey: input.batchId
    records: input.orders
    batch: 100
    transform: record.orderNo
    calls:
      - name: create
        method: POST
        path: /work-orders/batch
        body: '{ "numbers": input }'
`;
}

interface Setup {
  engine: RunningEngine;
  store: OutboxStore;
  platform: Awaited<ReturnType<typeof startRecordingErp>>;
  metrics: ReturnType<typeof createMetrics>;
}

async function setUp(): Promise<Setup> {
  const platform = await startRecordingErp({});
  cleanups.push(platform.close);
  const store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'push-test-')));
  cleanups.push(() => store.close());
  const metrics = createMetrics({ processMetrics: false });
  const engine = await startEngine(mappingText(platform.url), { env: ENV, outbox: store, meter: metrics });
  cleanups.push(engine.close);
  return { engine, store, platform, metrics };
}

async function push(engine: RunningEngine, name: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${engine.url}/push/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

const ORDER = { orderNo: 'SO-9001', version: 1, lines: [{ item: 'A-100', qty: 2 }, { item: 'B-200', qty: 1 }] };
const KEY = { 'x-api-key': ENV.ERP_PUSH_KEY };

function signed(body: string, at = Math.floor(Date.now() / 1000), secret = ENV.ERP_PUSH_SECRET): Record<string, string> {
  return { 'x-timestamp': String(at), 'x-signature': `sha256=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}` };
}

/** Delivers what is due, as the background loop does, until nothing is left (bounded: one event of a key per round). */
async function deliverAll(engine: RunningEngine): Promise<void> {
  for (let round = 0; round < 1100; round += 1) {
    if ((await engine.engine.deliverer!.runOnce()) === 0) return;
  }
  throw new Error('deliveries did not end');
}

describe('push endpoints: authentication', () => {
  it('apiKey: none or a wrong key is 401 and stores nothing; the right key is 202 with the event id', async () => {
    const { engine, store, platform } = await setUp();
    const body = JSON.stringify(ORDER);
    const none = await push(engine, 'NewOrder', body, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('header="X-Api-Key"');
    expect((await push(engine, 'NewOrder', body, { 'x-api-key': 'wrong' })).status).toBe(401);
    expect(await store.list({})).toEqual([]);
    const accepted = await push(engine, 'NewOrder', body, KEY);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ events: [expect.stringMatching(/^[0-9a-f-]{36}$/)], duplicate: false });
    const [event] = await store.list({ kind: 'push' });
    expect(event).toMatchObject({ id: (accepted.body.events as string[])[0], kind: 'push', operation: 'NewOrder', status: 'pending', input: { number: 'SO-9001', requests: [{ itemNumber: 'A-100', requestedAmount: 2 }, { itemNumber: 'B-200', requestedAmount: 1 }] } });
    await deliverAll(engine);
    expect(platform.received.map((request) => [request.method, request.url, JSON.parse(request.body)])).toEqual([['POST', '/api/v1/work-orders', event.input]]);
    expect(platform.received[0].headers['idempotency-key']).toBe(event.id);
    expect((await store.get(event.id))?.status).toBe('delivered');
  });

  it('basic: a wrong password is 401, the right one 202; the platform\'s inbound auth does not apply to pushes', async () => {
    const { engine, platform } = await setUp();
    const body = JSON.stringify({ orderNo: 'SO-1', line: 2 });
    const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`erp:${password}`).toString('base64')}` });
    expect((await push(engine, 'CancelLine', body, basic('nope'))).status).toBe(401);
    expect((await push(engine, 'CancelLine', body, basic(ENV.ERP_PUSH_PASSWORD))).status).toBe(202);
    await deliverAll(engine);
    expect(platform.received.map((request) => [request.url, request.body])).toEqual([['/api/v1/work-orders/SO-1/cancellations', '{"line":2}']]);
  });

  it('hmac: the signature covers the raw bytes and the timestamp; wrong, altered, replayed and unsigned pushes are 401', async () => {
    const { engine, store, metrics } = await setUp();
    // Spacing and escapes as the ERP wrote them: re-serialising the parsed JSON would not match the signature.
    const body = '{ "changeId": "C-1",  "item": "A-100", "quantity": 7, "note": "Gr\\u00fc\\u00dfe" }';
    expect((await push(engine, 'StockChange', body, signed(body))).status).toBe(202);
    expect((await push(engine, 'StockChange', body, signed(body, undefined, 'another-secret'))).status).toBe(401);
    const stale = await push(engine, 'StockChange', body, signed(body, Math.floor(Date.now() / 1000) - 3600));
    expect(stale.status).toBe(401);
    expect(stale.body.error).toContain('replayed');
    const fresh = signed(body);
    const altered = await push(engine, 'StockChange', body, { ...fresh, 'x-timestamp': String(Number(fresh['x-timestamp']) + 1) });
    expect(altered.status).toBe(401);
    expect((await push(engine, 'StockChange', body.replace('7', '8'), fresh)).status).toBe(401);
    expect((await push(engine, 'StockChange', body, { 'x-signature': fresh['x-signature'] })).status).toBe(401);
    expect(await store.list({})).toHaveLength(1);
    const text = await metrics.text();
    expect(text).toMatch(/adapter_requests_refused_total\{mapping="push-test",reason="stale"\} 1/);
    expect(text).toMatch(/adapter_requests_refused_total\{mapping="push-test",reason="invalid"\} 3/);
  });
});

describe('push endpoints: what is accepted', () => {
  it('an invalid push is 400 listing every problem (schema and rules), and nothing is stored', async () => {
    const { engine, store } = await setUp();
    const bad = await push(engine, 'NewOrder', JSON.stringify({ orderNo: 17, lines: [{ item: 'A', qty: 0 }] }), KEY);
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual([
      { path: '/version', message: 'is required' },
      { path: '/orderNo', message: 'must be string' },
      { path: 'rules[0]', message: 'order 17: every line needs a quantity above 0' },
    ]);
    const notJson = await push(engine, 'NewOrder', '{"orderNo": ', KEY);
    expect(notJson.status).toBe(400);
    expect(notJson.body.problems).toEqual([{ path: 'body', message: expect.stringContaining('not valid JSON') }]);
    expect(await store.list({ status: ['pending', 'dead', 'delivered', 'dropped'] })).toEqual([]);
  });

  it('a resend with the same idempotency key is 202 with the first event ids and forwarded once', async () => {
    const { engine, platform } = await setUp();
    const first = await push(engine, 'NewOrder', JSON.stringify(ORDER), KEY);
    await deliverAll(engine);
    const again = await push(engine, 'NewOrder', JSON.stringify(ORDER), KEY);
    expect(again).toMatchObject({ status: 202, body: { events: first.body.events, duplicate: true } });
    const newVersion = await push(engine, 'NewOrder', JSON.stringify({ ...ORDER, version: 2 }), KEY);
    expect(newVersion.body.duplicate).toBe(false);
    await deliverAll(engine);
    expect(platform.received).toHaveLength(2);
  });

  it('unknown pushes are 404, a GET is 405', async () => {
    const { engine } = await setUp();
    expect((await push(engine, 'Nope', '{}', KEY)).status).toBe(404);
    const response = await fetch(`${engine.url}/push/NewOrder`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('push endpoints: fan-out', () => {
  const orders = Array.from({ length: 1000 }, (_, index) => ({ orderNo: `SO-${String(index).padStart(4, '0')}` }));

  it('1,000 orders in one push become 1,000 platform calls, in order, each with its own event id', async () => {
    const { engine, store, platform } = await setUp();
    const accepted = await push(engine, 'Orders', JSON.stringify({ batchId: 'B-1', orders }), KEY);
    expect(accepted.status).toBe(202);
    expect(accepted.body.events).toHaveLength(1000);
    await deliverAll(engine);
    expect(platform.received.map((request) => JSON.parse(request.body) as unknown)).toEqual(orders.map((order, index) => ({ number: order.orderNo, position: index })));
    expect(new Set(platform.received.map((request) => request.headers['idempotency-key'])).size).toBe(1000);
    expect((await store.stats()).delivered).toBe(1000);
  }, 60_000);

  it('batch: 100 sends the 1,000 orders as 10 calls of 100, in order', async () => {
    const { engine, platform } = await setUp();
    expect((await push(engine, 'OrdersInBatches', JSON.stringify({ batchId: 'B-2', orders }), KEY)).body.events).toHaveLength(10);
    await deliverAll(engine);
    const batches = platform.received.map((request) => (JSON.parse(request.body) as { numbers: string[] }).numbers);
    expect(batches.map((numbers) => numbers.length)).toEqual(Array(10).fill(100));
    expect(batches.flat()).toEqual(orders.map((order) => order.orderNo));
  }, 60_000);
});

describe('push endpoints: metrics', () => {
  it('the outbox gauges and the deliveries counter say which kind: event (to the ERP) or push (to the platform)', async () => {
    const { engine, store, metrics } = await setUp();
    metrics.watchOutbox(() => store.stats());
    expect((await push(engine, 'NewOrder', JSON.stringify(ORDER), KEY)).status).toBe(202);
    // An event of a mapping no longer served waits (pending) without blocking anything.
    await store.enqueue({ id: 'ev-1', mapping: 'gone', operation: 'CancelPutWallItem', orderingKey: 'k', input: {}, requestId: 'r', acceptedAt: Date.now(), blocksKeyWhenDead: true });
    let text = await metrics.text();
    expect(text).toMatch(/^adapter_outbox_pending\{kind="push"\} 1$/m);
    expect(text).toMatch(/^adapter_outbox_pending\{kind="event"\} 1$/m);
    expect(text).toMatch(/^adapter_outbox_oldest_pending_seconds\{kind="push"\} \d/m);
    await deliverAll(engine);
    text = await metrics.text();
    expect(text).toMatch(/^adapter_outbox_pending\{kind="push"\} 0$/m);
    expect(text).toMatch(/^adapter_outbox_dead\{kind="push"\} 0$/m);
    expect(text).toMatch(/^adapter_outbox_deliveries_total\{mapping="push-test",kind="push",operation="NewOrder",outcome="delivered"\} 1$/m);
    expect(text).toMatch(/^adapter_requests_total\{mapping="push-test",operation="push\/NewOrder",result="Accepted"\} 1$/m);
  });
});
