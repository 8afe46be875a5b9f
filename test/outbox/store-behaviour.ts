import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewEvent, NewPush, OutboxStore, StoredEvent } from '../../engine/outbox/store';

/**
 * The behaviour every outbox store must have (the spec is the doc comments in engine/outbox/store.ts).
 * Each test gets a fresh, empty store from `open`; time is simulated through the `now` arguments.
 */

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

let counter = 0;
function newEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  counter++;
  return {
    id: randomUUID(),
    mapping: 'm1',
    operation: 'ConfirmPutWallPlacement',
    orderingKey: 'wall-1',
    input: { n: counter },
    requestId: `req-${counter}`,
    acceptedAt: T0,
    blocksKeyWhenDead: true,
    ...overrides,
  };
}

const ids = (events: readonly StoredEvent[]) => events.map((e) => e.id);

export function describeStoreBehaviour(name: string, open: () => Promise<OutboxStore>, cleanup?: () => Promise<void>): void {
  describe(`${name} outbox store behaviour`, () => {
    let store: OutboxStore;
    beforeEach(async () => { store = await open(); });
    afterEach(async () => {
      await store.close();
      await cleanup?.();
    });

    const claim = (now: number, owner = 'w1', limit = 10) => store.claimDue({ now, limit, leaseMs: LEASE, owner });
    async function enqueueAll(events: readonly NewEvent[]): Promise<StoredEvent[]> {
      const stored: StoredEvent[] = [];
      for (const event of events) stored.push(await store.enqueue(event));
      return stored;
    }

    it('round-trips every field of an enqueued event', async () => {
      const event = newEvent({
        input: { text: 'Grüße, 東京, 🚚', nested: { list: [1, 2.5, null, true, { deep: 'é' }] }, empty: {} },
        blocksKeyWhenDead: false,
        acceptedAt: T0 + 123,
        trace: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'platform=abc' },
      });
      const stored = await store.enqueue(event);
      expect(stored).toMatchObject({ ...event, status: 'pending', attempts: 0, nextAttemptAt: T0 + 123 });
      expect(stored.last).toBeUndefined();
      expect(stored.settledAt).toBeUndefined();
      expect(stored.dropReason).toBeUndefined();
      const got = await store.get(event.id);
      expect(got).toEqual(stored);
      expect(got?.input).toEqual(event.input);
      expect(await store.get(randomUUID())).toBeUndefined();
    });

    it('keeps an event without a trace context without one (stored before the engine kept them)', async () => {
      const stored = await store.enqueue(newEvent());
      expect(stored.trace).toBeUndefined();
      expect((await store.get(stored.id))?.trace).toBeUndefined();
    });

    it('assigns increasing seq', async () => {
      const stored = await enqueueAll([newEvent(), newEvent({ orderingKey: 'k2' }), newEvent({ mapping: 'm2' })]);
      expect(stored[1].seq).toBeGreaterThan(stored[0].seq);
      expect(stored[2].seq).toBeGreaterThan(stored[1].seq);
    });

    it('rejects a second event with the same id', async () => {
      const event = newEvent();
      await store.enqueue(event);
      await expect(store.enqueue({ ...event, orderingKey: 'other' })).rejects.toThrow();
    });

    it('claims oldest first, only the first pending event of each key, different keys together', async () => {
      const [a1, b1, a2, c1, b2] = await enqueueAll([
        newEvent({ orderingKey: 'a' }), newEvent({ orderingKey: 'b' }), newEvent({ orderingKey: 'a' }),
        newEvent({ orderingKey: 'a', mapping: 'm2' }), newEvent({ orderingKey: 'b' }),
      ]);
      const claimed = await claim(T0);
      expect(ids(claimed)).toEqual([a1.id, b1.id, c1.id]);
      expect(claimed.every((e) => e.attempts === 1)).toBe(true);
      // Leased or not, a pending event blocks its key.
      expect(await claim(T0 + LEASE * 10)).toHaveLength(3);
      expect(ids(await claim(T0 + LEASE * 20))).not.toContain(a2.id);
      expect(ids(await claim(T0 + LEASE * 30))).not.toContain(b2.id);
    });

    it('with backlogs on several keys of several mappings, claims the first event of each key whose turn it is', async () => {
      // Keys that sort around each other (a, a2, b) in three mappings, each with a history and a backlog.
      const make = (mapping: string, orderingKey: string, extra: Partial<NewEvent> = {}) => newEvent({ mapping, orderingKey, ...extra });
      const stored = await enqueueAll([
        make('m1', 'a'), make('m2', 'a'), make('m1', 'a2'), make('m3', 'b', { blocksKeyWhenDead: false }),
        make('m1', 'b'), make('m1', 'a'), make('m2', 'a'), make('m1', 'a2'), make('m3', 'b'), make('m1', 'b'),
        make('m1', 'a'), make('m2', 'a'), make('m1', 'a2'), make('m3', 'b'), make('m1', 'b'),
      ]);
      const [m1a1, m2a1, m1a21, m3b1, m1b1, m1a2, m2a2, m1a22, m3b2, m1b2, m1a3, , , m3b3] = stored;
      expect(ids(await claim(T0, 'w1', 100))).toEqual(ids([m1a1, m2a1, m1a21, m3b1, m1b1]));
      await store.delivered(m1a1.id, 'w1', T0 + 1); // m1/a: the next goes
      await store.dead(m2a1.id, 'w1', T0 + 1, { error: 'refused' }); // m2/a: dead and blocking, nothing goes
      await store.retryLater(m1a21.id, 'w1', T0 + 1000, { error: 'busy' }); // m1/a2: not due yet
      await store.dead(m3b1.id, 'w1', T0 + 1, { error: 'refused' }); // m3/b: dead, not blocking, the next goes
      // m1/b: still leased (in flight), nothing goes.
      expect(ids(await claim(T0 + 2, 'w2', 100))).toEqual(ids([m1a2, m3b2]));
      expect(ids(await claim(T0 + 1000, 'w2', 100))).toEqual([m1a21.id]);
      await store.drop(m2a1.id, 'fixed by hand', T0 + 1001);
      await store.delivered(m1b1.id, 'w1', T0 + 1001);
      await store.delivered(m1a2.id, 'w2', T0 + 1001);
      await store.delivered(m1a21.id, 'w2', T0 + 1001);
      await store.delivered(m3b2.id, 'w2', T0 + 1001);
      // Oldest first over all keys, and the limit counts across keys.
      expect(ids(await claim(T0 + 1002, 'w3', 3))).toEqual(ids([m2a2, m1a22, m1b2]));
      expect(ids(await claim(T0 + 1002, 'w3', 100))).toEqual(ids([m1a3, m3b3]));
      // The rest wait behind events in flight.
      expect(ids(await claim(T0 + 1002, 'w3', 100))).toEqual([]);
    });

    it('honours the limit, oldest first', async () => {
      const stored = await enqueueAll([1, 2, 3, 4].map((i) => newEvent({ orderingKey: `k${i}` })));
      expect(ids(await claim(T0, 'w1', 2))).toEqual(ids(stored.slice(0, 2)));
      expect(ids(await claim(T0, 'w1', 10))).toEqual(ids(stored.slice(2)));
    });

    it('does not claim events before they are due', async () => {
      await store.enqueue(newEvent({ acceptedAt: T0 + 1000 }));
      expect(await claim(T0)).toEqual([]);
      expect(await claim(T0 + 1000)).toHaveLength(1);
    });

    it('does not claim a leased event again before the lease ends, and does after, with one more attempt', async () => {
      const event = await store.enqueue(newEvent());
      expect((await claim(T0, 'w1'))[0]).toMatchObject({ id: event.id, attempts: 1 });
      expect(await claim(T0 + 1, 'w2')).toEqual([]);
      expect(await claim(T0 + LEASE - 1, 'w2')).toEqual([]);
      const again = await claim(T0 + LEASE + 1, 'w2');
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ id: event.id, attempts: 2, status: 'pending' });
      expect((await store.get(event.id))?.attempts).toBe(2);
      // The first owner lost the lease.
      expect(await store.delivered(event.id, 'w1', T0 + LEASE + 2)).toBe(false);
      expect(await store.delivered(event.id, 'w2', T0 + LEASE + 2)).toBe(true);
    });

    it('settles only for the owner of the lease', async () => {
      const event = await store.enqueue(newEvent());
      await claim(T0, 'w1');
      expect(await store.delivered(event.id, 'other', T0 + 1)).toBe(false);
      expect(await store.retryLater(event.id, 'other', T0 + 5, { error: 'x' })).toBe(false);
      expect(await store.dead(event.id, 'other', T0 + 1, { error: 'x' })).toBe(false);
      expect((await store.get(event.id))?.status).toBe('pending');
      expect(await store.delivered(randomUUID(), 'w1', T0)).toBe(false);
      // Not claimed at all: nobody owns it.
      const unclaimed = await store.enqueue(newEvent({ orderingKey: 'other' }));
      expect(await store.delivered(unclaimed.id, 'w1', T0)).toBe(false);
    });

    it('a delivered event unblocks the next of its key and cannot be settled twice', async () => {
      const [first, second] = await enqueueAll([newEvent(), newEvent()]);
      await claim(T0);
      expect(await store.delivered(first.id, 'w1', T0 + 10)).toBe(true);
      expect(await store.get(first.id)).toMatchObject({ status: 'delivered', settledAt: T0 + 10, attempts: 1 });
      expect(await store.delivered(first.id, 'w1', T0 + 11)).toBe(false);
      expect(ids(await claim(T0 + 20))).toEqual([second.id]);
    });

    it('retryLater keeps the key blocked until the event is due again, and records the outcome', async () => {
      const [first, second] = await enqueueAll([newEvent(), newEvent()]);
      await claim(T0);
      const outcome = { error: 'ERP answered 503', status: 503, body: '{"message":"busy – später"}' };
      expect(await store.retryLater(first.id, 'w1', T0 + 5000, outcome)).toBe(true);
      expect(await store.get(first.id)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 5000, last: outcome });
      expect(await claim(T0 + 10)).toEqual([]);
      expect(await claim(T0 + 4999)).toEqual([]);
      const again = await claim(T0 + 5000);
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ id: first.id, attempts: 2, last: outcome });
      // The new claim belongs to w1 again; settling it lets the next of the key go.
      expect(await store.delivered(first.id, 'w1', T0 + 5001)).toBe(true);
      expect(ids(await claim(T0 + 5002))).toEqual([second.id]);
    });

    it('records an outcome without status or body', async () => {
      const event = await store.enqueue(newEvent());
      await claim(T0);
      await store.retryLater(event.id, 'w1', T0 + 1, { error: 'connection refused' });
      const got = await store.get(event.id);
      expect(got?.last).toEqual({ error: 'connection refused' });
    });

    it('a dead event that blocks its key holds back the later events of that key only', async () => {
      const [first, second, other] = await enqueueAll([newEvent(), newEvent(), newEvent({ orderingKey: 'k2' })]);
      await claim(T0);
      const outcome = { error: 'refused', status: 422, body: 'bad' };
      expect(await store.dead(first.id, 'w1', T0 + 1, outcome)).toBe(true);
      expect(await store.get(first.id)).toMatchObject({ status: 'dead', settledAt: T0 + 1, last: outcome });
      expect(await store.delivered(other.id, 'w1', T0 + 1)).toBe(true);
      expect(await claim(T0 + LEASE * 2)).toEqual([]);
      expect((await store.get(second.id))?.status).toBe('pending');
    });

    it('retry makes a pending event in its backoff due now, keeps an attempt in flight to its owner, and leaves a delivered one alone', async () => {
      const [event] = await enqueueAll([newEvent()]);
      await claim(T0);
      expect(await store.retryLater(event.id, 'w1', T0 + 3_600_000, { error: 'ERP down', status: 503 })).toBe(true);
      expect(await claim(T0 + 10)).toEqual([]);
      expect(await store.retry(event.id, T0 + 10)).toBe('pending');
      expect(ids(await claim(T0 + 10))).toEqual([event.id]);
      // In flight now (leased to w1): made due, but not handed to a second deliverer while the lease lasts.
      expect(await store.retry(event.id, T0 + 11)).toBe('pending');
      expect(await claim(T0 + 12)).toEqual([]);
      expect(await store.delivered(event.id, 'w1', T0 + 13)).toBe(true);
      expect(await store.retry(event.id, T0 + 14)).toBeUndefined();
    });

    it('finds events by the first characters of their id', async () => {
      const [first, second] = await enqueueAll([newEvent(), newEvent()]);
      expect(await store.idsStartingWith(first.id.slice(0, 8), 5)).toEqual([first.id]);
      expect(await store.idsStartingWith(second.id, 5)).toEqual([second.id]);
      expect((await store.idsStartingWith('', 5)).sort()).toEqual([first.id, second.id].sort());
      expect(await store.idsStartingWith('zzzz', 5)).toEqual([]);
    });

    it('enqueueClaimed leases an event that is first of its key at once, so no claim hands it out meanwhile', async () => {
      const { event, claimed } = await store.enqueueClaimed(newEvent(), { now: T0, leaseMs: LEASE, owner: 'first-try' });
      expect(claimed).toBe(true);
      expect(event).toMatchObject({ status: 'pending', attempts: 1 });
      expect(await store.get(event.id)).toEqual(event);
      expect(await claim(T0 + 1)).toEqual([]);
      // Only its owner settles it; after the lease a deliverer may take it again (at least once).
      expect(await store.delivered(event.id, 'w1', T0 + 2)).toBe(false);
      expect(ids(await claim(T0 + LEASE + 1))).toEqual([event.id]);
    });

    it('enqueueClaimed does not lease an event whose key has an earlier event pending or blocking-dead: order holds', async () => {
      const [earlier] = await enqueueAll([newEvent()]);
      const later = await store.enqueueClaimed(newEvent(), { now: T0, leaseMs: LEASE, owner: 'first-try' });
      expect(later).toMatchObject({ claimed: false, event: { status: 'pending', attempts: 0 } });
      expect(ids(await claim(T0))).toEqual([earlier.id]);
      expect(await store.dead(earlier.id, 'w1', T0 + 1, { error: 'refused' })).toBe(true);
      expect((await store.enqueueClaimed(newEvent(), { now: T0 + 2, leaseMs: LEASE, owner: 'first-try' })).claimed).toBe(false);
      const otherKey = await store.enqueueClaimed(newEvent({ orderingKey: 'k2' }), { now: T0 + 2, leaseMs: LEASE, owner: 'first-try' });
      expect(otherKey.claimed).toBe(true);
    });

    it('refused settles an event for good without a dead letter: it holds back nothing and is purged as delivered ones are', async () => {
      const { event } = await store.enqueueClaimed(newEvent(), { now: T0, leaseMs: LEASE, owner: 'first-try' });
      const [next] = await enqueueAll([newEvent()]);
      const outcome = { error: 'work order closed', call: 'placement', status: 200, body: '{"error":{}}' };
      expect(await store.refused(event.id, 'someone-else', T0 + 1, outcome)).toBe(false);
      expect(await store.refused(event.id, 'first-try', T0 + 1, outcome)).toBe(true);
      expect(await store.get(event.id)).toMatchObject({ status: 'refused', settledAt: T0 + 1, last: outcome });
      expect(ids(await claim(T0 + 2))).toEqual([next.id]);
      expect(await store.list({ status: ['dead'] })).toEqual([]);
      expect((await store.stats()).refused).toBe(1);
      expect(await store.purge(T0 + 2)).toBe(1);
      expect(await store.get(event.id)).toBeUndefined();
    });

    it('a dead event that does not block its key lets the next one go', async () => {
      const [first, second] = await enqueueAll([newEvent({ blocksKeyWhenDead: false }), newEvent()]);
      await claim(T0);
      expect(await store.dead(first.id, 'w1', T0 + 1, { error: 'refused' })).toBe(true);
      expect(ids(await claim(T0 + 2))).toEqual([second.id]);
    });

    it('retry makes a dead event pending and due now; it says what the event was, and nothing for an unknown one', async () => {
      const [first, second] = await enqueueAll([newEvent(), newEvent()]);
      await claim(T0);
      await store.dead(first.id, 'w1', T0 + 1, { error: 'refused' });
      expect(await store.retry(randomUUID(), T0 + 100)).toBeUndefined();
      expect(await store.retry(first.id, T0 + 100)).toBe('dead');
      expect(await store.retry(first.id, T0 + 100)).toBe('pending');
      const got = await store.get(first.id);
      expect(got).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 100, attempts: 1 });
      expect(await claim(T0 + 99)).toEqual([]);
      const again = await claim(T0 + 100);
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ id: first.id, attempts: 2 });
      expect(await store.delivered(first.id, 'w1', T0 + 101)).toBe(true);
      expect(ids(await claim(T0 + 102))).toEqual([second.id]);
    });

    it('drop keeps the reason and unblocks the key; only pending or dead events can be dropped', async () => {
      const [first, second, third] = await enqueueAll([newEvent(), newEvent(), newEvent()]);
      await claim(T0);
      await store.dead(first.id, 'w1', T0 + 1, { error: 'refused' });
      expect(await store.drop(first.id, 'ERP fixed by hand', T0 + 50)).toBe(true);
      expect(await store.get(first.id)).toMatchObject({ status: 'dropped', dropReason: 'ERP fixed by hand', settledAt: T0 + 50 });
      expect(await store.drop(first.id, 'again', T0 + 51)).toBe(false);
      expect(await store.drop(randomUUID(), 'none', T0 + 51)).toBe(false);
      // A pending (unclaimed) event can be dropped too, and the next of its key goes.
      expect(await store.drop(second.id, 'duplicate', T0 + 52)).toBe(true);
      expect(ids(await claim(T0 + 53))).toEqual([third.id]);
      await store.delivered(third.id, 'w1', T0 + 54);
      expect(await store.drop(third.id, 'too late', T0 + 55)).toBe(false);
    });

    it('list filters and returns oldest first', async () => {
      const [a, b, c, d, e] = await enqueueAll([
        newEvent({ acceptedAt: T0 }),
        newEvent({ acceptedAt: T0 + 10, orderingKey: 'k2', operation: 'Other' }),
        newEvent({ acceptedAt: T0 + 20, mapping: 'm2' }),
        newEvent({ acceptedAt: T0 + 30, orderingKey: 'k3' }),
        newEvent({ acceptedAt: T0 + 40, orderingKey: 'k4' }),
      ]);
      await claim(T0 + 100);
      await store.delivered(a.id, 'w1', T0 + 101);
      await store.dead(b.id, 'w1', T0 + 101, { error: 'refused' });
      await store.drop(c.id, 'no', T0 + 101);
      expect(ids(await store.list({}))).toEqual(ids([a, b, c, d, e]));
      expect(ids(await store.list({ status: ['pending'] }))).toEqual(ids([d, e]));
      expect(ids(await store.list({ status: ['dead', 'delivered'] }))).toEqual(ids([a, b]));
      expect(ids(await store.list({ status: [] }))).toEqual([]);
      expect(ids(await store.list({ mapping: 'm2' }))).toEqual([c.id]);
      expect(ids(await store.list({ operation: 'Other' }))).toEqual([b.id]);
      expect(ids(await store.list({ orderingKey: 'wall-1' }))).toEqual(ids([a, c]));
      expect(ids(await store.list({ orderingKey: 'wall-1', mapping: 'm1' }))).toEqual([a.id]);
      expect(ids(await store.list({ acceptedBefore: T0 + 20 }))).toEqual(ids([a, b]));
      expect(ids(await store.list({ limit: 2 }))).toEqual(ids([a, b]));
      expect(ids(await store.list({ status: ['pending'], limit: 1 }))).toEqual([d.id]);
      expect((await store.list({ status: ['dead'] }))[0]).toMatchObject({ id: b.id, last: { error: 'refused' } });
    });

    it('lists the latest settled first on order: settled, with when and what the ERP answered', async () => {
      const [a, b, c, d, e] = await enqueueAll([
        newEvent({ acceptedAt: T0, orderingKey: 'k1' }),
        newEvent({ acceptedAt: T0 + 10, orderingKey: 'k2' }),
        newEvent({ acceptedAt: T0 + 20, orderingKey: 'k3' }),
        newEvent({ acceptedAt: T0 + 30, orderingKey: 'k4' }),
        newEvent({ acceptedAt: T0 + 40, orderingKey: 'k5' }),
      ]);
      await claim(T0 + 100);
      // Settled in another order than accepted: c first, then a, then b; d refused; e still pending.
      await store.delivered(c.id, 'w1', T0 + 101, { error: '', call: 'placement', status: 201, body: '{"id":3}' });
      await store.delivered(a.id, 'w1', T0 + 103, { error: '', call: 'placement', status: 200, body: '{"id":1}' });
      await store.refused(d.id, 'w1', T0 + 104, { error: 'refused', status: 422, body: 'no' });
      await store.delivered(b.id, 'w1', T0 + 105);
      expect(ids(await store.list({ status: ['delivered'], order: 'settled' }))).toEqual(ids([b, a, c]));
      expect(ids(await store.list({ status: ['delivered'], order: 'accepted' }))).toEqual(ids([a, b, c]));
      expect(ids(await store.list({ order: 'settled' }))).toEqual(ids([b, d, a, c, e]));
      expect(ids(await store.list({ status: ['delivered', 'refused'], order: 'settled', limit: 2 }))).toEqual(ids([b, d]));
      const [latest] = await store.list({ status: ['delivered'], order: 'settled', limit: 1, mapping: 'm1' });
      expect(latest).toMatchObject({ id: b.id, status: 'delivered', attempts: 1, settledAt: T0 + 105 });
      expect((await store.list({ status: ['delivered'], order: 'settled' }))[1]).toMatchObject({ id: a.id, settledAt: T0 + 103, last: { call: 'placement', status: 200, body: '{"id":1}' } });
    });

    it('list returns at most 100 events by default', async () => {
      await enqueueAll(Array.from({ length: 105 }, (_, i) => newEvent({ orderingKey: `k${i}` })));
      const listed = await store.list({});
      expect(listed).toHaveLength(100);
      expect(listed.map((e) => e.seq)).toEqual([...listed.map((e) => e.seq)].sort((x, y) => x - y));
    });

    it('stats counts each status and the oldest pending acceptance', async () => {
      const none = { pending: 0, dead: 0, delivered: 0, dropped: 0, refused: 0 };
      expect(await store.stats()).toEqual({ ...none, byKind: { event: none, push: none } });
      const [a, b, c] = await enqueueAll([
        newEvent({ acceptedAt: T0 }), newEvent({ acceptedAt: T0 + 5, orderingKey: 'k2' }),
        newEvent({ acceptedAt: T0 + 7, orderingKey: 'k3' }), newEvent({ acceptedAt: T0 + 9, orderingKey: 'k4' }),
        newEvent({ acceptedAt: T0 + 11, orderingKey: 'k5' }),
      ]);
      await claim(T0 + 100);
      await store.delivered(a.id, 'w1', T0 + 101);
      await store.dead(b.id, 'w1', T0 + 101, { error: 'refused' });
      await store.drop(c.id, 'no', T0 + 101);
      expect(await store.stats()).toMatchObject({ pending: 2, dead: 1, delivered: 1, dropped: 1, oldestPendingAt: T0 + 9 });
      // A push's events are counted apart, and in the totals.
      await store.enqueuePush({ mapping: 'm1', push: 'StockChange', idempotencyKey: 'c-1', acceptedAt: T0 + 3, events: [newEvent({ kind: 'push', operation: 'StockChange', orderingKey: 'p', acceptedAt: T0 + 3 })] });
      expect(await store.stats()).toEqual({
        pending: 3, dead: 1, delivered: 1, dropped: 1, refused: 0, oldestPendingAt: T0 + 3,
        byKind: { event: { pending: 2, dead: 1, delivered: 1, dropped: 1, refused: 0, oldestPendingAt: T0 + 9 }, push: { pending: 1, dead: 0, delivered: 0, dropped: 0, refused: 0, oldestPendingAt: T0 + 3 } },
      });
    });

    it('purge deletes only delivered and dropped events settled before the time', async () => {
      const [a, b, c, d, e] = await enqueueAll([1, 2, 3, 4, 5].map((i) => newEvent({ orderingKey: `k${i}` })));
      await claim(T0);
      await store.delivered(a.id, 'w1', T0 + 10);
      await store.delivered(b.id, 'w1', T0 + 30);
      await store.drop(c.id, 'no', T0 + 10);
      await store.dead(d.id, 'w1', T0 + 10, { error: 'refused' });
      expect(await store.purge(T0 + 30)).toBe(2);
      expect(await store.get(a.id)).toBeUndefined();
      expect(await store.get(c.id)).toBeUndefined();
      expect(ids(await store.list({}))).toEqual(ids([b, d, e]));
      expect(await store.purge(T0 + 30)).toBe(0);
      expect(await store.purge(T0 + 31)).toBe(1);
    });

    it('interleaved claimers never receive the same event', async () => {
      const events = Array.from({ length: 60 }, (_, i) => newEvent({ orderingKey: `k${i % 20}` }));
      await enqueueAll(events);
      const seen = new Map<string, string>();
      let now = T0;
      for (let round = 0; round < 50 && seen.size < events.length; round++) {
        const batches = await Promise.all(['w1', 'w2', 'w3'].map((owner) => claim(now, owner, 4)));
        for (const [i, batch] of batches.entries()) {
          const owner = `w${i + 1}`;
          for (const event of batch) {
            expect(seen.has(event.id)).toBe(false);
            seen.set(event.id, owner);
          }
        }
        now += 1;
        for (const [i, batch] of batches.entries()) {
          for (const event of batch) expect(await store.delivered(event.id, `w${i + 1}`, now)).toBe(true);
        }
      }
      expect(seen.size).toBe(events.length);
      expect(await store.stats()).toMatchObject({ pending: 0, delivered: events.length });
    });

    const newPush = (key: string, records: number, overrides: Partial<NewPush> = {}): NewPush => ({
      mapping: 'm1', push: 'NewOrder', idempotencyKey: key, acceptedAt: T0,
      events: Array.from({ length: records }, (_, index) => newEvent({ kind: 'push', operation: 'NewOrder', orderingKey: 'NewOrder', input: { index } })),
      ...overrides,
    });

    it('stores every event of a push in order, as kind push, and lists them by kind', async () => {
      const before = await store.enqueue(newEvent());
      const push = newPush('SO-1/1', 3);
      const receipt = await store.enqueuePush(push);
      expect(receipt).toEqual({ eventIds: push.events.map((event) => event.id), duplicate: false });
      const listed = await store.list({ kind: 'push' });
      expect(ids(listed)).toEqual(receipt.eventIds);
      expect(listed.map((event) => [event.kind, event.input])).toEqual([['push', { index: 0 }], ['push', { index: 1 }], ['push', { index: 2 }]]);
      expect(listed[0].seq).toBeGreaterThan(before.seq);
      expect(ids(await store.list({ kind: 'event' }))).toEqual([before.id]);
      expect((await store.get(before.id))?.kind).toBe('event');
    });

    it('a push with a key seen before stores nothing and gets the first push\'s event ids', async () => {
      const first = await store.enqueuePush(newPush('SO-1/1', 2));
      const again = await store.enqueuePush(newPush('SO-1/1', 2));
      expect(again).toEqual({ eventIds: first.eventIds, duplicate: true });
      expect(await store.list({})).toHaveLength(2);
      // The key is per mapping and push: another push may use the same one.
      expect((await store.enqueuePush(newPush('SO-1/1', 1, { push: 'StockChange' }))).duplicate).toBe(false);
      expect((await store.enqueuePush(newPush('SO-1/1', 1, { mapping: 'm2' }))).duplicate).toBe(false);
    });

    it('resends at the same moment store the push once', async () => {
      const receipts = await Promise.all(Array.from({ length: 5 }, () => store.enqueuePush(newPush('same', 2))));
      expect(receipts.filter((receipt) => !receipt.duplicate)).toHaveLength(1);
      expect(new Set(receipts.map((receipt) => receipt.eventIds.join()))).toEqual(new Set([receipts[0].eventIds.join()]));
      expect(await store.list({})).toHaveLength(2);
    });

    it('forgets a push\'s key once its events are purged, not before', async () => {
      const receipt = await store.enqueuePush(newPush('k', 1));
      const [event] = await claim(T0);
      expect(event.id).toBe(receipt.eventIds[0]);
      await store.delivered(event.id, 'w1', T0 + 10);
      expect(await store.purge(T0 + 5)).toBe(0);
      expect((await store.enqueuePush(newPush('k', 1))).duplicate).toBe(true);
      expect(await store.purge(T0 + 11)).toBe(1);
      expect((await store.enqueuePush(newPush('k', 1))).duplicate).toBe(false);
    });
  });
}
