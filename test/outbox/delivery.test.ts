import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/core/engine';
import { checkMappingText } from '../../engine/mapping/load';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import type { OutboxStore } from '../../engine/outbox/store';
import { head, mappingFromText } from '../support/engine';

/**
 * delivery: outbox in process, with the real SQLite store and a real HTTP ERP: events are answered at
 * once, delivered in acceptance order per key, retried while the ERP cannot take them, and kept as dead
 * letters (blocking their key) when it refuses them.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Received { readonly docNo: string; readonly seq: number; readonly idempotencyKey?: string; readonly requestId?: string }

/** An ERP that records placements and answers `status(body)` (200 by default). */
async function countingErp(status: (body: { docNo: string; seq: number }) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString(); });
    req.on('end', () => {
      const body = JSON.parse(text) as { docNo: string; seq: number };
      const code = status(body);
      if (code < 300) received.push({ ...body, idempotencyKey: req.headers['idempotency-key'] as string | undefined, requestId: req.headers['x-request-id'] as string | undefined });
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(code < 300 ? { ok: true } : { error: 'refused' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const PLACEMENT = (settings: string) => `  ConfirmPutWallPlacement:
    delivery: outbox
    outbox: { orderingKey: input.workOrderNumber${settings} }
    calls:
      - name: placement
        method: POST
        path: /placements
        body: '{ "docNo": input.workOrderNumber, "seq": input.completedAmount }'
`;

function placement(docNo: string, seq: number) {
  return { workOrderNumber: docNo, itemNumber: 'A-1', completedAmount: seq, confirmedLocationName: 'B1', userEmail: 'u@example.com' };
}

function tempStore(): OutboxStore {
  const store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-delivery-')));
  cleanups.push(() => store.close());
  return store;
}

function engineWith(url: string, store: OutboxStore | 'inline', settings = '', now?: () => number): Engine {
  const engine = createEngine({ mappings: [mappingFromText(head(url, 'retry: { attempts: 1 }') + PLACEMENT(settings))], outbox: store, now });
  cleanups.push(() => engine.close());
  return engine;
}

const post = (engine: Engine, body: unknown, requestId?: string) => engine.handle({ method: 'POST', path: '/WorkOrders/ForPutWall', body, requestId });

/** Runs delivery passes until nothing is claimed (bounded). */
async function deliverAll(engine: Engine): Promise<void> {
  for (let pass = 0; pass < 50; pass += 1) if ((await engine.deliverer!.runOnce()) === 0) return;
  throw new Error('delivery did not settle within 50 passes');
}

describe('delivery: outbox', () => {
  it('answers Succeed once stored, then delivers every event once, in order per key, with its idempotency key and request id', async () => {
    const erp = await countingErp();
    const store = tempStore();
    const engine = engineWith(erp.url, store);
    const sent: { docNo: string; seq: number }[] = [];
    for (let seq = 1; seq <= 6; seq += 1) {
      const docNo = seq % 2 === 0 ? 'SO-2' : 'SO-1';
      const answer = await post(engine, placement(docNo, seq), `req-${seq}`);
      expect(answer.envelope).toEqual({ isResultSuccess: true, result: 1, validationStatus: null, externalMessage: null });
      sent.push({ docNo, seq });
    }
    expect(erp.received).toHaveLength(0);
    expect((await store.stats()).pending).toBe(6);
    await deliverAll(engine);
    expect((await store.stats())).toMatchObject({ pending: 0, delivered: 6, dead: 0 });
    for (const docNo of ['SO-1', 'SO-2']) {
      expect(erp.received.filter((r) => r.docNo === docNo).map((r) => r.seq)).toEqual(sent.filter((s) => s.docNo === docNo).map((s) => s.seq));
    }
    const events = await store.list({ status: ['delivered'] });
    expect(erp.received.map((r) => r.idempotencyKey).sort()).toEqual(events.map((e) => e.id).sort());
    expect(erp.received.map((r) => r.requestId).sort()).toEqual(['req-1', 'req-2', 'req-3', 'req-4', 'req-5', 'req-6']);
  });

  it('retries while the ERP answers 503, keeping the key blocked, and delivers once it takes them; past maxAgeMs it gives up', async () => {
    let down = true;
    const erp = await countingErp(() => (down ? 503 : 200));
    const store = tempStore();
    let now = Date.now();
    const engine = engineWith(erp.url, store, '', () => now);
    await post(engine, placement('SO-1', 1));
    await post(engine, placement('SO-1', 2));
    expect(await engine.deliverer!.runOnce()).toBe(1); // only the first of its key is tried
    const [first] = await store.list({ status: ['pending'], limit: 1 });
    expect(first).toMatchObject({ attempts: 1, last: { status: 503, error: expect.stringContaining('503') } });
    expect(first.nextAttemptAt).toBeGreaterThan(now);
    expect(await engine.deliverer!.runOnce()).toBe(0); // not due yet
    now += 10 * 60_000;
    down = false;
    await deliverAll(engine);
    expect(erp.received.map((r) => r.seq)).toEqual([1, 2]);

    down = true;
    await post(engine, placement('SO-3', 3));
    await engine.deliverer!.runOnce();
    now += 25 * 3_600_000; // past the default maxAgeMs of 24 h
    await deliverAll(engine);
    const [dead] = await store.list({ status: ['dead'] });
    expect(dead).toMatchObject({ orderingKey: 'SO-3', last: { error: expect.stringMatching(/^not delivered within maxAgeMs/) } });
  });

  it('a refused event (422) goes to the dead letters with the ERP answer and blocks its key; other keys go on; drop unblocks', async () => {
    const erp = await countingErp((body) => (body.seq === 1 ? 422 : 200));
    const store = tempStore();
    const engine = engineWith(erp.url, store);
    await post(engine, placement('SO-1', 1));
    await post(engine, placement('SO-1', 2));
    await post(engine, placement('SO-9', 3));
    await deliverAll(engine);
    const [dead] = await store.list({ status: ['dead'] });
    expect(dead).toMatchObject({ orderingKey: 'SO-1', last: { status: 422, body: '{"error":"refused"}' } });
    expect(erp.received.map((r) => r.seq)).toEqual([3]);
    expect(await store.drop(dead.id, 'the ERP already has it (ticket 42)', Date.now())).toBe(true);
    await deliverAll(engine);
    expect(erp.received.map((r) => r.seq)).toEqual([3, 2]);
    expect(await store.get(dead.id)).toMatchObject({ status: 'dropped', dropReason: 'the ERP already has it (ticket 42)' });
  });

  it('onDeadLetter: skip lets the later events of the key go on', async () => {
    const erp = await countingErp((body) => (body.seq === 1 ? 400 : 200));
    const store = tempStore();
    const engine = engineWith(erp.url, store, ', onDeadLetter: skip');
    await post(engine, placement('SO-1', 1));
    await post(engine, placement('SO-1', 2));
    await deliverAll(engine);
    expect(erp.received.map((r) => r.seq)).toEqual([2]);
    expect((await store.stats()).dead).toBe(1);
  });

  it('an event whose ordering key gives nothing is accepted and ordered with the operation\'s keyless events', async () => {
    const erp = await countingErp();
    const store = tempStore();
    const engine = engineWith(erp.url, store);
    expect((await post(engine, { completedAmount: 1 })).envelope).toMatchObject({ isResultSuccess: true });
    expect(await store.list({})).toMatchObject([{ orderingKey: 'ConfirmPutWallPlacement' }]);
  });

  it('an event the store cannot keep is answered as a failure, never as a false success', async () => {
    const erp = await countingErp();
    const store = tempStore();
    const broken: OutboxStore = { ...store, location: 'broken', enqueue: () => Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })) };
    const engine = engineWith(erp.url, broken);
    const answer = await post(engine, placement('SO-1', 1));
    expect(answer.envelope).toMatchObject({ isResultSuccess: false, result: 0 });
    expect(answer.failure?.kind).toBe('EVENT_NOT_STORED');
  });

  it('inline (dry-run, test): the answer is what the platform gets, and the delivery verdict is reported', async () => {
    const erp = await countingErp((body) => (body.seq === 1 ? 409 : 200));
    const engine = engineWith(erp.url, 'inline');
    expect(await post(engine, placement('SO-1', 2))).toMatchObject({ envelope: { isResultSuccess: true }, delivery: { verdict: 'delivered' } });
    expect(await post(engine, placement('SO-1', 1))).toMatchObject({ envelope: { isResultSuccess: true }, delivery: { verdict: 'dead', message: expect.stringContaining('409') } });
  });
});

describe('delivery: outbox in the request journal', () => {
  it('names the stored event, and says where it stands now: pending with the last failure, dead with the ERP\'s answer, delivered', async () => {
    let refuse = 503;
    const erp = await countingErp((body) => (body.docNo === 'SO-9' ? refuse : 200));
    const store = tempStore();
    let now = Date.now();
    const engine = engineWith(erp.url, store, '', () => now);
    const refused = await post(engine, placement('SO-9', 1));
    const taken = await post(engine, placement('SO-1', 1));
    const storedStep = (await engine.describeRequest(refused.entry!().id))?.steps.find((step) => step.step === 'stored');
    expect(storedStep).toEqual({ step: 'stored', eventId: expect.stringMatching(/^[0-9a-f-]{36}$/), orderingKey: 'SO-9' });
    const eventId = (storedStep as { eventId: string }).eventId;

    await engine.deliverer!.runOnce();
    expect((await engine.describeRequest(refused.entry!().id))?.events).toEqual([
      { id: eventId, status: 'pending', attempts: 1, nextAttemptAt: expect.any(String), last: expect.objectContaining({ status: 503 }) },
    ]);
    refuse = 422;
    now += 10 * 60_000;
    await deliverAll(engine);
    expect((await engine.describeRequest(refused.entry!().id))?.events).toEqual([
      { id: eventId, status: 'dead', attempts: 2, settledAt: new Date(now).toISOString(), last: { error: expect.stringContaining('422'), call: 'placement', status: 422, body: '{"error":"refused"}' } },
    ]);
    // A delivered event keeps the answer it got: support staff see it, and an export replays it.
    expect((await engine.describeRequest(taken.entry!().id))?.events).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1, last: expect.objectContaining({ call: 'placement', status: expect.any(Number) }) })]);

    // Delivered and dropped events are purged after a week; the journal still names the event.
    await store.drop(eventId, 'the order was cancelled in the ERP', now);
    await store.purge(now + 1);
    expect((await engine.describeRequest(refused.entry!().id))?.events).toEqual([{ id: eventId, status: 'gone' }]);
  });
});

describe('delivery: outbox is refused where the answer depends on the ERP', () => {
  const base = head('http://127.0.0.1:9');
  it('on a data route, at the line; an outcome rule giving another result classifies the delivery instead (issue 29)', () => {
    const text = `${base}  GetItem:
    delivery: outbox
    calls: [{ name: item, method: GET, path: /items }]
    output: '{"number": "x"}'
  AttachWorkOrder:
    delivery: outbox
    calls: [{ name: assign, method: POST, path: /assign }]
    outcomes:
      - when: response.status = 409
        result: ContainerAlreadyAttached
`;
    const { issues } = checkMappingText(text, 'outbox.yaml', {});
    const refused = issues.filter((issue) => issue.code === 'OUTBOX_NOT_ALLOWED').map((issue) => [issue.path, issue.line]);
    expect(refused).toEqual([['operations.GetItem.delivery', 9]]);
  });

  it('outbox settings without delivery: outbox are a warning; an engine without a store refuses an outbox mapping', () => {
    const text = `${base}${PLACEMENT('').replace('    delivery: outbox\n', '')}`;
    const { issues, mapping } = checkMappingText(text, 'w.yaml', {});
    expect(issues.map((issue) => issue.code).filter((code) => code !== 'UNMAPPED_ROUTE')).toEqual(['SETTINGS_DISAGREE']);
    expect(mapping).toBeDefined();
    expect(() => createEngine({ mappings: [mappingFromText(base + PLACEMENT(''))] })).toThrow(/no outbox store/);
  });
});
