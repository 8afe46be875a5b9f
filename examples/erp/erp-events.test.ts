import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startErp, type RunningErp } from './main';
import { erpClient } from './test-client';

let erp: RunningErp;
const api = erpClient(() => erp.url);

beforeAll(async () => {
  erp = await startErp({ port: 0 });
});
afterAll(async () => {
  await erp.close();
});
beforeEach(async () => {
  expect((await api.del('/events')).status).toBe(204);
});

describe('simple event endpoints', () => {
  const cases: [string, string, unknown][] = [
    ['/putwall/placements', 'putwall-placement', { batch: 'PW-01', docNo: 'SO-1001', slot: 'S-03' }],
    ['/putwall/cancellations', 'putwall-cancellation', { batch: 'PW-01', docNo: 'SO-1002', reason: 'damaged' }],
    ['/position-cancellations', 'position-cancellation', { docNo: 'SO-1003', posNo: 20 }],
    ['/cart-relocations', 'cart-relocation', [{ cart: 'CART-7', from: 'A-01', to: 'B-02' }, { cart: 'CART-8', from: 'A-02', to: 'B-03' }]],
    ['/order-status', 'order-status', { docNo: 'SO-1001', status: 'PICKED' }],
  ];

  it.each(cases)('POST %s records a %s event with the body as received', async (path, type, payload) => {
    const before = Date.now();
    const { status, body } = await api.post(path, payload);
    expect(status).toBe(201);
    expect(body).toEqual({ eventId: expect.any(Number) });
    const { events } = (await api.get(`/events?type=${type}`)).body;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: body.eventId, type, body: payload });
    expect(Date.parse(events[0].receivedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(erp.state.events.map((e) => e.id)).toEqual([body.eventId]);
  });

  it('rejects malformed JSON and wrong body shapes without recording', async () => {
    const malformed = await api.postRaw('/order-status', '{"docNo": "SO-1001",');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('BAD_REQUEST');
    const notArray = await api.post('/cart-relocations', { cart: 'CART-7' });
    expect(notArray.status).toBe(400);
    expect(notArray.body.error.code).toBe('BAD_REQUEST');
    const notObject = await api.post('/putwall/placements', ['SO-1001']);
    expect(notObject.status).toBe(400);
    expect((await api.get('/events')).body.events).toEqual([]);
  });

  it('lists all events in arrival order with increasing ids, filters by type and clears', async () => {
    const a = await api.post('/order-status', { docNo: 'SO-1001', status: 'STARTED' });
    const b = await api.post('/putwall/placements', { docNo: 'SO-1002' });
    const c = await api.post('/order-status', { docNo: 'SO-1001', status: 'DONE' });
    expect(b.body.eventId).toBe(a.body.eventId + 1);
    const all = (await api.get('/events')).body.events;
    expect(all.map((e: any) => e.id)).toEqual([a.body.eventId, b.body.eventId, c.body.eventId]);
    const statuses = (await api.get('/events?type=order-status')).body.events;
    expect(statuses.map((e: any) => e.body.status)).toEqual(['STARTED', 'DONE']);
    expect((await api.del('/events')).status).toBe(204);
    expect((await api.get('/events')).body).toEqual({ events: [] });
  });
});

describe('POST /pick-confirmations', () => {
  it('answers without correction when stock suffices', async () => {
    const payload = { docNo: 'SO-1001', requestId: 'REQ-1', article: 'A-100', quantity: 12, confirmed: 12 };
    const { status, body } = await api.post('/pick-confirmations', payload);
    expect(status).toBe(201);
    expect(body).toEqual({ eventId: expect.any(Number), correction: null });
    const small = await api.post('/pick-confirmations', { ...payload, article: 'A-300', quantity: 3, confirmed: 3 });
    expect(small.body.correction).toBeNull();
    const events = (await api.get('/events?type=pick-confirmation')).body.events;
    expect(events.map((e: any) => e.body)).toEqual([payload, { ...payload, article: 'A-300', quantity: 3, confirmed: 3 }]);
  });

  it('reduces A-300 to the 3 available when more is requested', async () => {
    const payload = { docNo: 'SO-1003', requestId: 'REQ-77', article: 'A-300', quantity: 5, confirmed: 5 };
    const { status, body } = await api.post('/pick-confirmations', payload);
    expect(status).toBe(201);
    expect(body).toEqual({
      eventId: expect.any(Number),
      correction: {
        headerText: 'Short stock: A-300 reduced',
        positions: [{ requestId: 'REQ-77', article: 'A-300', quantity: 3, cancelled: false }],
      },
    });
    expect((await api.get('/events?type=pick-confirmation')).body.events[0].body).toEqual(payload);
  });
});

describe('POST /container-assignments', () => {
  const assign = (docNo: string, container: string, release = false) =>
    api.post('/container-assignments', { docNo, container, release });

  it('runs the container state machine', async () => {
    const first = await assign('SO-1001', 'C-100');
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ eventId: expect.any(Number) });
    expect(erp.state.containers.get('C-100')).toBe('SO-1001');

    const again = await assign('SO-1001', 'C-100');
    expect(again.status).toBe(201); // same assignment again is idempotent

    const orderTaken = await assign('SO-1001', 'C-101');
    expect(orderTaken.status).toBe(409);
    expect(orderTaken.body.error).toEqual({ code: 'ORDER_ALREADY_ASSIGNED', message: 'Sales order SO-1001 is already in container C-100' });

    const occupied = await assign('SO-1002', 'C-100');
    expect(occupied.status).toBe(409);
    expect(occupied.body.error.code).toBe('CONTAINER_OCCUPIED');

    const wrongRelease = await assign('SO-1002', 'C-100', true);
    expect(wrongRelease.status).toBe(409);
    expect(wrongRelease.body.error.code).toBe('CONTAINER_OCCUPIED');

    const released = await assign('SO-1001', 'C-100', true);
    expect(released.status).toBe(201);
    expect(erp.state.containers.has('C-100')).toBe(false);

    const releaseUnknown = await assign('SO-1001', 'C-100', true);
    expect(releaseUnknown.status).toBe(404);
    expect(releaseUnknown.body.error.code).toBe('CONTAINER_NOT_FOUND');

    const reuse = await assign('SO-1002', 'C-100');
    expect(reuse.status).toBe(201);
    expect(erp.state.containers.get('C-100')).toBe('SO-1002');

    const events = (await api.get('/events?type=container-assignment')).body.events;
    expect(events.map((e: any) => [e.body.docNo, e.body.container, e.body.release])).toEqual([
      ['SO-1001', 'C-100', false], ['SO-1001', 'C-100', false], ['SO-1001', 'C-100', true], ['SO-1002', 'C-100', false],
    ]);
    await assign('SO-1002', 'C-100', true);
  });

  it('rejects unknown orders, invalid container codes and bad bodies without recording', async () => {
    const unknown = await assign('SO-4711', 'C-100');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({ code: 'ORDER_NOT_FOUND', message: 'Sales order SO-4711 not found' });
    for (const code of ['C-1', 'BOX-100', 'c-100', 'C-100A']) {
      const invalid = await assign('SO-1001', code);
      expect(invalid.status, code).toBe(422);
      expect(invalid.body.error.code).toBe('CONTAINER_INVALID');
    }
    const bad = await api.post('/container-assignments', { docNo: 'SO-1001' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    expect((await api.get('/events')).body.events).toEqual([]);
    expect(erp.state.containers.size).toBe(0);
  });

  it('keeps state per instance', async () => {
    await assign('SO-1001', 'C-200');
    const other = await startErp();
    try {
      const res = await erpClient(() => other.url).post('/container-assignments', { docNo: 'SO-1002', container: 'C-200' });
      expect(res.status).toBe(201);
      expect(other.state.events).toHaveLength(1);
      expect(erp.state.containers.get('C-200')).toBe('SO-1001');
    } finally {
      await other.close();
    }
    await assign('SO-1001', 'C-200', true);
  });
});
