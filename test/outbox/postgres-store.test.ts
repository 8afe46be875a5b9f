import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { openPostgresStore } from '../../engine/outbox/postgres-store';
import { openPostgres } from '../../engine/postgres-open';
import type { NewEvent, OutboxStore, StoredEvent } from '../../engine/outbox/store';
import { describeWithPostgres } from '../support/postgres';
import { describeStoreBehaviour } from './store-behaviour';

/**
 * The PostgreSQL outbox against a throwaway server (one for this file): the shared behaviour, plus two
 * replicas (two pools) claiming at once, and migrations run by several processes at once.
 */

const T0 = 1_700_000_000_000;

function newEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  return {
    id: randomUUID(), mapping: 'm1', operation: 'ConfirmPutWallPlacement', orderingKey: 'k', input: { a: 1 },
    requestId: 'r', acceptedAt: T0, blocksKeyWhenDead: true, ...overrides,
  };
}

async function sql(url: string, text: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

let schemas = 0;
const freshSchema = () => `outbox_${process.pid}_${++schemas}`;

describeWithPostgres('PostgreSQL outbox store', (server) => {
  let behaviourSchema: string | undefined;
  describeStoreBehaviour(
    'PostgreSQL',
    async () => {
      behaviourSchema = freshSchema();
      return openPostgresStore(await openPostgres(server().url), { schema: behaviourSchema });
    },
    async () => {
      if (behaviourSchema) await sql(server().url, `DROP SCHEMA IF EXISTS "${behaviourSchema}" CASCADE`);
      behaviourSchema = undefined;
    },
  );

  const opened: OutboxStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  async function open(schema: string, url = server().url): Promise<OutboxStore> {
    const store = await openPostgresStore(await openPostgres(url), { schema });
    opened.push(store);
    return store;
  }

  it('names the database without its password, and uses the public schema by default', async () => {
    const url = server().url.replace('postgres@', 'postgres:s3cret@');
    const store = await openPostgresStore(await openPostgres(url));
    opened.push(store);
    expect(store.location).not.toContain('s3cret');
    expect(store.location).toContain('127.0.0.1');
    const event = await store.enqueue(newEvent());
    const { rows } = await sql(server().url, 'SELECT id FROM public.outbox_events');
    expect(rows).toEqual([{ id: event.id }]);
    await sql(server().url, 'DROP TABLE public.outbox_events, public.outbox_push_receipts, public.outbox_schema_version');
  });

  it('migrates once when several processes open the same schema at once, and again is a no-op', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 5 }, () => open(schema)));
    const { rows } = await sql(server().url, `SELECT version FROM "${schema}".outbox_schema_version`);
    expect(rows).toEqual([{ version: 5 }]);
    const event = await stores[0].enqueue(newEvent());
    const again = await open(schema);
    expect(await again.get(event.id)).toEqual(event);
    expect(await stores[4].get(event.id)).toEqual(event);
    expect((await sql(server().url, `SELECT version FROM "${schema}".outbox_schema_version`)).rows).toEqual([{ version: 5 }]);
  });

  /** Version 1 as the engine first wrote it, with three events of one key; `$S` is the schema. */
  const VERSION_1 = `CREATE TABLE $S.outbox_schema_version (version integer NOT NULL);
    CREATE TABLE $S.outbox_events (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text NOT NULL UNIQUE, mapping text NOT NULL,
      operation text NOT NULL, ordering_key text NOT NULL, input json, request_id text NOT NULL, accepted_at bigint NOT NULL,
      blocks_key_when_dead boolean NOT NULL, status text NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'dropped')),
      attempts integer NOT NULL DEFAULT 0, next_attempt_at bigint NOT NULL, last json, settled_at bigint, drop_reason text,
      lease_owner text, lease_until bigint);
    CREATE INDEX outbox_events_pending ON $S.outbox_events (seq) WHERE status = 'pending';
    CREATE INDEX outbox_events_key_seq ON $S.outbox_events (mapping, ordering_key, seq);
    CREATE INDEX outbox_events_settled ON $S.outbox_events (settled_at) WHERE status IN ('delivered', 'dropped');
    INSERT INTO $S.outbox_events (id, mapping, operation, ordering_key, input, request_id, accepted_at, blocks_key_when_dead, status, next_attempt_at)
      VALUES ('a', 'm1', 'Op', 'k', '{"n":1}', 'r', ${T0}, true, 'delivered', ${T0}), ('b', 'm1', 'Op', 'k', '{"n":2}', 'r', ${T0}, true, 'pending', ${T0}),
             ('c', 'm1', 'Op', 'k', '{"n":3}', 'r', ${T0}, true, 'pending', ${T0});`;
  /** Version 2 added the partial index the claim walks. */
  const VERSION_2 = `${VERSION_1}
    CREATE INDEX outbox_events_blocking ON $S.outbox_events (mapping, ordering_key, seq) WHERE (status = 'pending' OR (status = 'dead' AND blocks_key_when_dead));`;

  /** What the push endpoints' branch wrote as version 2 before its release: version 1 with kind and push receipts, no claim index. */
  const PUSH_BRANCH_2 = `${VERSION_1}
    ALTER TABLE $S.outbox_events ADD COLUMN kind text NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'push'));
    CREATE TABLE $S.outbox_push_receipts (mapping text NOT NULL, push text NOT NULL, idempotency_key text NOT NULL, event_ids json NOT NULL,
      accepted_at bigint NOT NULL, PRIMARY KEY (mapping, push, idempotency_key));
    CREATE INDEX outbox_push_receipts_accepted ON $S.outbox_push_receipts (accepted_at);`;

  it.each([[1, VERSION_1], [2, VERSION_2], [2, PUSH_BRANCH_2]])('brings a schema of version %i up to date (5), keeping its events as kind event; claims, takes pushes and settles refused', async (version, tables) => {
    const schema = freshSchema();
    await sql(server().url, `CREATE SCHEMA "${schema}"; ${tables.replaceAll('$S', `"${schema}"`)} INSERT INTO "${schema}".outbox_schema_version VALUES (${version});`);
    const store = await open(schema);
    expect((await sql(server().url, `SELECT version FROM "${schema}".outbox_schema_version`)).rows).toEqual([{ version: 5 }]);
    expect((await store.claimDue({ now: T0, limit: 10, leaseMs: 1000, owner: 'w1' })).map((e) => [e.id, e.kind, e.input])).toEqual([['b', 'event', { n: 2 }]]);
    const push = { mapping: 'm1', push: 'NewOrder', idempotencyKey: 'SO-1', acceptedAt: T0, events: [newEvent({ kind: 'push', operation: 'NewOrder', orderingKey: 'p' })] };
    expect(await store.enqueuePush(push)).toEqual({ eventIds: [push.events[0].id], duplicate: false });
    expect(await store.enqueuePush({ ...push, events: [newEvent({ kind: 'push' })] })).toEqual({ eventIds: [push.events[0].id], duplicate: true });
    const indexes = await sql(server().url, `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname = 'outbox_events_blocking'`, [schema]);
    expect(indexes.rows).toHaveLength(1);
    // Version 5: status refused.
    expect(await store.refused('b', 'w1', T0 + 1, { error: 'closed' })).toBe(true);
    expect(await store.get('b')).toMatchObject({ status: 'refused', settledAt: T0 + 1 });
  });

  it('refuses a schema from a newer engine', async () => {
    const schema = freshSchema();
    await (await open(schema)).close();
    await sql(server().url, `UPDATE "${schema}".outbox_schema_version SET version = 99`);
    await expect(openPostgresStore(await openPostgres(server().url), { schema })).rejects.toThrow(/schema version 99/);
  });

  it('a slow enqueue holds back a later event of its key until it commits (commit order is seq order)', async () => {
    const schema = freshSchema();
    const store = await open(schema);
    // The slow insert has its seq before it sleeps, as a slow commit would.
    await sql(server().url, `CREATE FUNCTION "${schema}".slow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.input->>'slow' = 'yes' THEN PERFORM pg_sleep(0.6); END IF; RETURN NEW; END $$;
      CREATE TRIGGER slow AFTER INSERT ON "${schema}".outbox_events FOR EACH ROW EXECUTE FUNCTION "${schema}".slow()`);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const first = store.enqueue(newEvent({ input: { slow: 'yes' } }));
    await sleep(150);
    const second = store.enqueue(newEvent());
    await sleep(150);
    // Were the second committed already, it would look first of its key here.
    expect(await store.claimDue({ now: T0, limit: 10, leaseMs: 1000, owner: 'w1' })).toEqual([]);
    const [a, b] = await Promise.all([first, second]);
    expect(b.seq).toBeGreaterThan(a.seq);
    expect((await store.claimDue({ now: T0, limit: 10, leaseMs: 1000, owner: 'w1' })).map((e) => e.id)).toEqual([a.id]);
  });

  it('two replicas claiming at once never get the same event, and claim each key in seq order', async () => {
    const schema = freshSchema();
    const [one, two] = [await open(schema), await open(schema)];
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    const total = 240;
    const events = Array.from({ length: total }, (_, i) => newEvent({ orderingKey: keys[i % keys.length], mapping: i % 4 === 0 ? 'm2' : 'm1' }));
    // Half are there before the claimers start; the other half arrive while they run, from both replicas.
    for (const event of events.slice(0, total / 2)) await one.enqueue(event);
    const late = events.slice(total / 2);

    const seen = new Map<string, string>();
    const lastSeq = new Map<string, number>();
    const inFlight = new Set<string>();
    const order: string[] = [];
    async function replica(store: OutboxStore, owner: string): Promise<void> {
      for (let round = 0; round < 2000 && seen.size < total; round++) {
        const claimed: StoredEvent[] = await store.claimDue({ now: T0, limit: 3, leaseMs: 600_000, owner });
        for (const event of claimed) {
          const key = `${event.mapping}/${event.orderingKey}`;
          expect(seen.get(event.id), `event ${event.seq} claimed twice`).toBeUndefined();
          expect(inFlight.has(key), `two events of ${key} at once`).toBe(false);
          expect(event.seq, `${key} out of order`).toBeGreaterThan(lastSeq.get(key) ?? 0);
          seen.set(event.id, owner);
          lastSeq.set(key, event.seq);
          inFlight.add(key);
          order.push(event.id);
        }
        for (const event of claimed) {
          inFlight.delete(`${event.mapping}/${event.orderingKey}`);
          expect(await store.delivered(event.id, owner, T0)).toBe(true);
        }
        if (claimed.length === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    async function producer(store: OutboxStore, batch: readonly NewEvent[]): Promise<void> {
      for (const event of batch) await store.enqueue(event);
    }
    await Promise.all([
      replica(one, 'p1'), replica(two, 'p2'),
      producer(one, late.filter((_, i) => i % 2 === 0)), producer(two, late.filter((_, i) => i % 2 === 1)),
    ]);

    expect(seen.size).toBe(total);
    expect(new Set(seen.values())).toEqual(new Set(['p1', 'p2']));
    const stored = await one.list({ limit: total });
    expect(stored.every((e) => e.status === 'delivered' && e.attempts === 1)).toBe(true);
    // Per key, the claim order is the seq order.
    const seqOf = new Map(stored.map((e) => [e.id, e]));
    for (const key of keys) {
      for (const mapping of ['m1', 'm2']) {
        const claimedSeqs = order.map((id) => seqOf.get(id)).filter((e) => e?.orderingKey === key && e.mapping === mapping).map((e) => e?.seq ?? 0);
        expect(claimedSeqs).toEqual([...claimedSeqs].sort((x, y) => x - y));
      }
    }
    expect(await two.stats()).toMatchObject({ pending: 0, delivered: total });
  });
});
