import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type RunningPlatform } from '../platform';
import { startErp, type RunningErp } from './main';
import { pushesUnder } from './pushes';
import { erpClient } from './test-client';

/** The example ERP's pushes (to a recording server on 127.0.0.1 standing for the engine), and the platform stand-in. */

const SECRET = 'erp-push-secret-of-this-test';
const arrived: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let engine: http.Server;
let erp: RunningErp;
let quiet: RunningErp;
const api = erpClient(() => erp.url);
const unconfigured = erpClient(() => quiet.url);

beforeAll(async () => {
  engine = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    request.on('end', () => {
      arrived.push({ path: request.url ?? '', headers: request.headers, body });
      response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ events: [`e${arrived.length}`], duplicate: false }));
    });
  });
  await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
  erp = await startErp({ port: 0, push: { url: pushesUnder(`http://127.0.0.1:${(engine.address() as AddressInfo).port}/push`), secret: SECRET } });
  quiet = await startErp({ port: 0 });
});
afterAll(async () => {
  await Promise.all([erp.close(), quiet.close(), new Promise((resolve) => engine.close(resolve))]);
});

describe('the example ERP pushes its changes', () => {
  it('a new order, a cancelled line and a stock change, each signed over "<timestamp>.<body>", kept with the answer', async () => {
    const created = await api.post('/sales-orders', { docNo: 'SO-3001', deliveryDate: '2026-12-20', positions: [{ article: 'A-100', quantity: 2 }, { article: 'A-200', quantity: 4 }] });
    expect(created.status).toBe(201);
    expect(created.body.push.answer).toEqual({ status: 202, body: { events: ['e1'], duplicate: false } });
    expect((await api.get('/sales-orders/SO-3001')).body.positions).toHaveLength(2);
    expect((await api.request('POST', '/sales-orders/SO-3001/positions/20/cancellation')).status).toBe(201);
    expect((await api.get('/sales-orders/SO-3001')).body.positions.map((p: { posNo: number }) => p.posNo)).toEqual([10]);
    expect((await api.post('/articles/A-300/stock', { available: 9 })).status).toBe(201);

    expect(arrived.map((push) => push.path)).toEqual(['/push/NewOrder', '/push/CancelOrderLine', '/push/StockChange']);
    for (const push of arrived) {
      const signed = createHmac('sha256', SECRET).update(`${String(push.headers['x-timestamp'])}.${push.body}`).digest('hex');
      expect(push.headers['x-signature']).toBe(`sha256=${signed}`);
      expect(Math.abs(Number(push.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(JSON.parse(arrived[1].body)).toMatchObject({ docNo: 'SO-3001', posNo: 20, article: 'A-200' });
    expect(JSON.parse(arrived[2].body)).toMatchObject({ changeNo: 1, article: 'A-300', available: 9 });
    expect((await api.get('/pushes')).body.pushes.map((push: { push: string }) => push.push)).toEqual(['NewOrder', 'CancelOrderLine', 'StockChange']);
  });

  it('refuses what it cannot do, and pushes nothing then', async () => {
    const before = arrived.length;
    expect((await api.post('/sales-orders', { docNo: 'SO-1001', deliveryDate: '2026-12-20', positions: [{ article: 'A-100', quantity: 1 }] })).status).toBe(409);
    expect((await api.post('/sales-orders', { docNo: 'SO-3002', deliveryDate: '2026-12-20', positions: [{ article: 'NOPE', quantity: 1 }] })).status).toBe(400);
    expect((await api.request('POST', '/sales-orders/SO-1001/positions/99/cancellation')).status).toBe(404);
    expect((await api.post('/articles/A-300/stock', { available: -1 })).status).toBe(400);
    expect(arrived.length).toBe(before);
  });

  it('without a push target the change is made and the push is kept as not sent', async () => {
    const created = await unconfigured.post('/sales-orders', { docNo: 'SO-3003', deliveryDate: '2026-12-20', positions: [{ article: 'A-100', quantity: 1 }] });
    expect(created.status).toBe(201);
    expect(created.body.push.answer.error).toContain('ERP_PUSH_URL');
  });
});

describe('the platform stand-in', () => {
  let platform: RunningPlatform;
  beforeAll(async () => {
    platform = await startPlatform({ port: 0 });
  });
  afterAll(() => platform.close());

  it('records each POST with the idempotency key and request id, lists and forgets them', async () => {
    const posted = await fetch(`${platform.url}/work-orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'ev-1', 'x-request-id': 'r-1' }, body: '{"number":"SO-1"}' });
    expect(posted.status).toBe(201);
    expect((await fetch(`${platform.url}/work-orders`, { method: 'POST', body: 'not json' })).status).toBe(400);
    const listed = await (await fetch(`${platform.url}/received`)).json() as { received: unknown[] };
    expect(listed.received).toEqual([expect.objectContaining({ n: 1, method: 'POST', path: '/work-orders', idempotencyKey: 'ev-1', requestId: 'r-1', body: { number: 'SO-1' } })]);
    expect((await fetch(`${platform.url}/received`, { method: 'DELETE' })).status).toBe(204);
    expect(platform.received).toEqual([]);
  });
});
