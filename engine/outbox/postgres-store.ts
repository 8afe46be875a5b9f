import type pg from 'pg';
import type {
  AttemptOutcome, ClaimOptions, EventKind, EventStatus, LeaseOptions, ListFilter, NewEvent, NewPush, OutboxStats, OutboxStore, PushReceipt, StoredEvent,
} from './store';
import { withPoolClient, type PostgresDatabase } from '../postgres-open';
import { listOrderSql, statsOf, traceOf } from './store';

/**
 * The outbox in PostgreSQL, shared by replicas. An enqueue is one autocommitted INSERT: it resolves once
 * the server has committed it (durable with the server's default fsync=on, synchronous_commit=on).
 *
 * Order per key (mapping + ordering key), with several replicas:
 * - Enqueue takes a per-key advisory transaction lock before the identity assigns `seq`, so events of one
 *   key commit in seq order. Without it, seq 11 could commit before seq 10, a claimer would see only 11,
 *   hand it out as first of its key, and 10 would follow it.
 * - claimDue takes an event only while, in its statement's snapshot, no earlier event of its key is
 *   pending (leased or not) or dead-and-blocking. An event leaves 'pending' only when it is settled, so a
 *   later event can be handed out only after the earlier one was delivered, went dead (not blocking) or
 *   was dropped: snapshots can be stale, but a stale one shows the earlier event still pending, which
 *   only holds the later one back. So two events of one key are never in flight at once, nor out of order
 *   (apart from what an operator's drop or retry of an event in flight means, as in SQLite, and a lease
 *   that ran out, which is at-least-once delivery of the same event).
 * - FOR UPDATE SKIP LOCKED keeps two replicas off the same row: a row another claim has locked is skipped;
 *   a row whose claim committed after our snapshot is locked and re-checked on its newest version
 *   (READ COMMITTED, set explicitly), where its live lease excludes it. The NOT EXISTS subquery locks
 *   nothing and needs no locks, by the argument above.
 */

const SCHEMA_VERSION = 5;

/**
 * An event holds back the later events of its key while it is pending (leased or not) or dead and
 * blocking; the first of these per key is the only one a claim may hand out. Written the same way in the
 * partial index and the claim, so the planner proves the index covers the claim's condition.
 */
const BLOCKING = `(status = 'pending' OR (status = 'dead' AND blocks_key_when_dead))`;

/** Each step brings the schema from version i to i + 1; `$S` is the quoted schema. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE $S.outbox_events (
     seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id text NOT NULL UNIQUE,
     mapping text NOT NULL,
     operation text NOT NULL,
     ordering_key text NOT NULL,
     input json,
     request_id text NOT NULL,
     accepted_at bigint NOT NULL,
     blocks_key_when_dead boolean NOT NULL,
     status text NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'dropped')),
     attempts integer NOT NULL DEFAULT 0,
     next_attempt_at bigint NOT NULL,
     last json,
     settled_at bigint,
     drop_reason text,
     lease_owner text,
     lease_until bigint
   );
   CREATE INDEX outbox_events_pending ON $S.outbox_events (seq) WHERE status = 'pending';
   CREATE INDEX outbox_events_key_seq ON $S.outbox_events (mapping, ordering_key, seq);
   CREATE INDEX outbox_events_settled ON $S.outbox_events (settled_at) WHERE status IN ('delivered', 'dropped');`,
  // The events that hold their key (BLOCKING): a claim finds the first of each key here instead of
  // looking past every pending event of a key and every settled one before it.
  `CREATE INDEX outbox_events_blocking ON $S.outbox_events (mapping, ordering_key, seq) WHERE ${BLOCKING};`,
  // 3: the ERP's pushes, delivered to the platform, share the table; a push's idempotency key is kept with its event ids.
  `ALTER TABLE $S.outbox_events ADD COLUMN kind text NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'push'));
   CREATE TABLE $S.outbox_push_receipts (
     mapping text NOT NULL,
     push text NOT NULL,
     idempotency_key text NOT NULL,
     event_ids json NOT NULL,
     accepted_at bigint NOT NULL,
     PRIMARY KEY (mapping, push, idempotency_key)
   );
   CREATE INDEX outbox_push_receipts_accepted ON $S.outbox_push_receipts (accepted_at);`,
  // 4: the W3C trace context of the request that stored the event, continued by its delivery.
  `ALTER TABLE $S.outbox_events ADD COLUMN traceparent text, ADD COLUMN tracestate text;`,
  // 5: status refused (a first try the ERP refused while the platform waited), settled and purged as a delivered one.
  `ALTER TABLE $S.outbox_events DROP CONSTRAINT outbox_events_status_check,
     ADD CONSTRAINT outbox_events_status_check CHECK (status IN ('pending', 'delivered', 'dead', 'dropped', 'refused'));
   DROP INDEX $S.outbox_events_settled;
   CREATE INDEX outbox_events_settled ON $S.outbox_events (settled_at) WHERE status IN ('delivered', 'dropped', 'refused');`,
];

type Int8 = string | number;
interface EventRow {
  seq: Int8; id: string; kind: EventKind; mapping: string; operation: string; ordering_key: string; input: unknown;
  request_id: string; accepted_at: Int8; blocks_key_when_dead: boolean; status: EventStatus; attempts: number;
  next_attempt_at: Int8; last: AttemptOutcome | null; settled_at: Int8 | null; drop_reason: string | null;
  traceparent: string | null; tracestate: string | null;
}

function toEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    kind: row.kind,
    mapping: row.mapping,
    operation: row.operation,
    orderingKey: row.ordering_key,
    input: row.input === null ? undefined : row.input,
    requestId: row.request_id,
    acceptedAt: Number(row.accepted_at),
    blocksKeyWhenDead: row.blocks_key_when_dead,
    seq: Number(row.seq),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: Number(row.next_attempt_at),
    ...(row.last === null ? {} : { last: row.last }),
    ...(row.settled_at === null ? {} : { settledAt: Number(row.settled_at) }),
    ...(row.drop_reason === null ? {} : { dropReason: row.drop_reason }),
    ...traceOf(row),
  };
}

const outcomeJson = (o: AttemptOutcome) => JSON.stringify({ error: o.error, call: o.call, status: o.status, body: o.body });

const COLUMNS = `seq, id, kind, mapping, operation, ordering_key, input, request_id, accepted_at, blocks_key_when_dead,
  status, attempts, next_attempt_at, last, settled_at, drop_reason, traceparent, tracestate`;
const SETTLE = `lease_owner = NULL, lease_until = NULL`;

/** Runs `work` in one transaction on one client of the pool: committed when it resolves, rolled back when it throws. */
async function inTransaction<T>(pool: pg.Pool, begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withPoolClient(pool, async (client) => {
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}

async function migrate(pool: pg.Pool, schema: string, S: string, location: string): Promise<void> {
  await withPoolClient(pool, async (client) => {
    try {
      await client.query('BEGIN');
      // Two processes opening at once: the second waits here and then finds the schema up to date.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('outbox-migrate'), hashtext($1))`, [schema]);
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${S}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${S}.outbox_schema_version (version integer NOT NULL)`);
      const got = await client.query<{ version: number }>(`SELECT version FROM ${S}.outbox_schema_version`);
      const version = got.rows[0]?.version ?? 0;
      if (version > SCHEMA_VERSION) {
        throw new Error(`${location} (schema ${schema}) has outbox schema version ${version}; this engine knows up to ${SCHEMA_VERSION}`);
      }
      // Before release, the push endpoints' branch numbered its step (kind, push receipts) 2: such a schema
      // has the kind column and lacks the claim's index, which is all it needs.
      const pushedEarly = version === 2 && ((await client.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'outbox_events' AND column_name = 'kind'`, [schema])).rowCount ?? 0) > 0;
      if (pushedEarly) await client.query(MIGRATIONS[1].replaceAll('$S', S));
      // Such a schema then stands at version 3 and takes the steps after it.
      for (let v = pushedEarly ? 3 : version; v < SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v].replaceAll('$S', S));
      if (got.rowCount === 0) await client.query(`INSERT INTO ${S}.outbox_schema_version VALUES ($1)`, [SCHEMA_VERSION]);
      else if (version !== SCHEMA_VERSION) await client.query(`UPDATE ${S}.outbox_schema_version SET version = $1`, [SCHEMA_VERSION]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}

export async function openPostgresStore(database: PostgresDatabase, options: { schema?: string } = {}): Promise<OutboxStore> {
  const schema = options.schema ?? 'public';
  const S = `"${schema.replaceAll('"', '""')}"`;
  const T = `${S}.outbox_events`;
  const { pool, location } = database;
  const release = database.use();
  await migrate(pool, schema, S, location).catch(async (err: unknown) => { await release(); throw err; });
  let closed = false;

  const R = `${S}.outbox_push_receipts`;
  // The key's lock is taken (materialized CTE) before the row, and its seq, is made; it is held to commit.
  const INSERT_EVENT = `WITH key_lock AS MATERIALIZED (
      SELECT pg_advisory_xact_lock(hashtext('outbox-key:' || $10::text), hashtext($2::text || '/' || $4::text)))
    INSERT INTO ${T} (id, mapping, operation, ordering_key, input, request_id, accepted_at, blocks_key_when_dead,
      status, attempts, next_attempt_at, kind, traceparent, tracestate)
    SELECT $1::text, $2::text, $3::text, $4::text, $5::json, $6::text, $7::bigint, $8::boolean, 'pending', 0, $9::bigint, $11::text, $12::text, $13::text
    FROM key_lock RETURNING ${COLUMNS}`;
  const insertParams = (event: NewEvent) => [event.id, event.mapping, event.operation, event.orderingKey,
    event.input === undefined ? null : JSON.stringify(event.input), event.requestId, event.acceptedAt,
    event.blocksKeyWhenDead, event.acceptedAt, schema, event.kind ?? 'event', event.trace?.traceparent ?? null, event.trace?.tracestate ?? null];
  const run = async <R extends pg.QueryResultRow = EventRow>(sql: string, params: unknown[] = []) => pool.query<R>(sql, params);
  const changed = async (sql: string, params: unknown[]) => (await run(sql, params)).rowCount === 1;

  return {
    location: schema === 'public' ? location : `${location} (schema ${schema})`,

    async enqueue(event: NewEvent): Promise<StoredEvent> {
      const { rows } = await run(INSERT_EVENT, insertParams(event));
      return toEvent(rows[0]);
    },

    async enqueueClaimed(event: NewEvent, lease: LeaseOptions): Promise<{ event: StoredEvent; claimed: boolean }> {
      return inTransaction(pool, 'BEGIN ISOLATION LEVEL READ COMMITTED', async (client) => {
        // The key's lock first, in a statement of its own: the check below then runs on a snapshot taken
        // after every earlier event of the key committed (their inserts hold the same lock to commit).
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('outbox-key:' || $1::text), hashtext($2::text || '/' || $3::text))`, [schema, event.mapping, event.orderingKey]);
        const held = await client.query(`SELECT 1 FROM ${T} WHERE ${BLOCKING} AND mapping = $1 AND ordering_key = $2 LIMIT 1`, [event.mapping, event.orderingKey]);
        const { rows } = await client.query<EventRow>(INSERT_EVENT, insertParams(event));
        if (held.rowCount !== 0) return { event: toEvent(rows[0]), claimed: false };
        const leased = await client.query<EventRow>(`UPDATE ${T} SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 WHERE seq = $3 RETURNING ${COLUMNS}`, [lease.owner, lease.now + lease.leaseMs, rows[0].seq]);
        return { event: toEvent(leased.rows[0]), claimed: true };
      });
    },

    async enqueuePush(push: NewPush): Promise<PushReceipt> {
      return inTransaction(pool, 'BEGIN', async (client) => {
        // Two resends of one push at once: the second waits here and then finds the first one's receipt.
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('outbox-push:' || $1::text), hashtext($2::text || '/' || $3::text || '/' || $4::text))`, [schema, push.mapping, push.push, push.idempotencyKey]);
        const earlier = await client.query<{ event_ids: string[] }>(`SELECT event_ids FROM ${R} WHERE mapping = $1 AND push = $2 AND idempotency_key = $3`, [push.mapping, push.push, push.idempotencyKey]);
        if (earlier.rows.length > 0) return { eventIds: earlier.rows[0].event_ids, duplicate: true };
        // Each insert takes its key's lock (held to commit), so the push's events commit in seq order with the key's others.
        for (const event of push.events) await client.query(INSERT_EVENT, insertParams(event));
        const eventIds = push.events.map((event) => event.id);
        await client.query(`INSERT INTO ${R} (mapping, push, idempotency_key, event_ids, accepted_at) VALUES ($1, $2, $3, $4::json, $5)`,
          [push.mapping, push.push, push.idempotencyKey, JSON.stringify(eventIds), push.acceptedAt]);
        return { eventIds, duplicate: false };
      });
    },

    async claimDue(claim: ClaimOptions): Promise<StoredEvent[]> {
      if (claim.limit <= 0) return [];
      return inTransaction(pool, 'BEGIN ISOLATION LEVEL READ COMMITTED', async (client) => {
        // The first BLOCKING event of each key, keys walked through the partial index (a loose index
        // scan: one seek per key that has any), so a claim costs the number of such keys, not the number
        // of events waiting behind them. Of those, the pending, due and unleased ones, oldest first, are
        // locked by primary key (= ANY of an array: no join the planner could turn into a scan of every
        // pending event) and checked again on their newest version.
        const { rows } = await client.query<EventRow>(`WITH RECURSIVE heads AS (
            (SELECT seq, mapping, ordering_key, status, next_attempt_at, lease_until FROM ${T}
              WHERE ${BLOCKING} ORDER BY mapping, ordering_key, seq LIMIT 1)
            UNION ALL
            SELECT n.* FROM heads h CROSS JOIN LATERAL (
              SELECT seq, mapping, ordering_key, status, next_attempt_at, lease_until FROM ${T}
              WHERE ${BLOCKING} AND (mapping, ordering_key) > (h.mapping, h.ordering_key)
              ORDER BY mapping, ordering_key, seq LIMIT 1) n),
          candidates AS (
            SELECT seq FROM heads
            WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
            ORDER BY seq LIMIT $2),
          due AS (
            SELECT e.seq FROM ${T} e
            WHERE e.seq = ANY(ARRAY(SELECT seq FROM candidates))
              AND e.status = 'pending' AND e.next_attempt_at <= $1 AND (e.lease_until IS NULL OR e.lease_until < $1)
            FOR UPDATE OF e SKIP LOCKED)
          UPDATE ${T} t SET lease_owner = $3, lease_until = $4, attempts = t.attempts + 1
          FROM due WHERE t.seq = due.seq RETURNING t.*`,
        [claim.now, claim.limit, claim.owner, claim.now + claim.leaseMs]);
        return rows.map(toEvent).sort((a, b) => a.seq - b.seq);
      });
    },

    async delivered(id: string, owner: string, at: number, answer?: AttemptOutcome): Promise<boolean> {
      return changed(`UPDATE ${T} SET status = 'delivered', settled_at = $1, last = COALESCE($4, last), ${SETTLE}
        WHERE id = $2 AND lease_owner = $3 AND status = 'pending'`, [at, id, owner, answer ? outcomeJson(answer) : null]);
    },

    async retryLater(id: string, owner: string, nextAttemptAt: number, outcome: AttemptOutcome): Promise<boolean> {
      return changed(`UPDATE ${T} SET next_attempt_at = $1, last = $2, ${SETTLE}
        WHERE id = $3 AND lease_owner = $4 AND status = 'pending'`, [nextAttemptAt, outcomeJson(outcome), id, owner]);
    },

    async refused(id: string, owner: string, at: number, outcome: AttemptOutcome): Promise<boolean> {
      return changed(`UPDATE ${T} SET status = 'refused', settled_at = $1, last = $2, ${SETTLE}
        WHERE id = $3 AND lease_owner = $4 AND status = 'pending'`, [at, outcomeJson(outcome), id, owner]);
    },

    async dead(id: string, owner: string, at: number, outcome: AttemptOutcome): Promise<boolean> {
      return changed(`UPDATE ${T} SET status = 'dead', settled_at = $1, last = $2, ${SETTLE}
        WHERE id = $3 AND lease_owner = $4 AND status = 'pending'`, [at, outcomeJson(outcome), id, owner]);
    },

    async get(id: string): Promise<StoredEvent | undefined> {
      const { rows } = await run(`SELECT ${COLUMNS} FROM ${T} WHERE id = $1`, [id]);
      return rows.map(toEvent)[0];
    },

    async list(filter: ListFilter): Promise<StoredEvent[]> {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, value: unknown) => { params.push(value); where.push(sql.replace('?', `$${params.length}`)); };
      if (filter.status !== undefined) {
        if (filter.status.length === 0) return [];
        add('status = ANY(?::text[])', filter.status);
      }
      if (filter.kind !== undefined) add('kind = ?', filter.kind);
      if (filter.mapping !== undefined) add('mapping = ?', filter.mapping);
      if (filter.operation !== undefined) add('operation = ?', filter.operation);
      if (filter.orderingKey !== undefined) add('ordering_key = ?', filter.orderingKey);
      if (filter.acceptedBefore !== undefined) add('accepted_at < ?', filter.acceptedBefore);
      params.push(filter.limit ?? 100);
      const { rows } = await run(`SELECT ${COLUMNS} FROM ${T} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ${listOrderSql(filter.order)} LIMIT $${params.length}`, params);
      return rows.map(toEvent);
    },

    async retry(id: string, now: number): Promise<'dead' | 'pending' | undefined> {
      if (await changed(`UPDATE ${T} SET status = 'pending', next_attempt_at = $1, settled_at = NULL, ${SETTLE}
        WHERE id = $2 AND status = 'dead'`, [now, id])) return 'dead';
      // Only the time: an attempt in flight keeps its lease, so the event is not sent twice at once.
      return (await changed(`UPDATE ${T} SET next_attempt_at = $1 WHERE id = $2 AND status = 'pending'`, [now, id])) ? 'pending' : undefined;
    },

    async idsStartingWith(prefix: string, limit: number): Promise<string[]> {
      const { rows } = await run<{ id: string }>(`SELECT id FROM ${T} WHERE left(id, $1) = $2 ORDER BY seq LIMIT $3`, [prefix.length, prefix, limit]);
      return rows.map((row) => row.id);
    },

    async drop(id: string, reason: string, now: number): Promise<boolean> {
      return changed(`UPDATE ${T} SET status = 'dropped', drop_reason = $1, settled_at = $2, ${SETTLE}
        WHERE id = $3 AND status IN ('pending', 'dead')`, [reason, now, id]);
    },

    async purge(before: number): Promise<number> {
      const result = await run(`DELETE FROM ${T} WHERE status IN ('delivered', 'dropped', 'refused') AND settled_at < $1`, [before]);
      await run(`DELETE FROM ${R} r WHERE r.accepted_at < $1 AND NOT EXISTS (
        SELECT 1 FROM json_array_elements_text(r.event_ids) j JOIN ${T} e ON e.id = j.value)`, [before]);
      return result.rowCount ?? 0;
    },

    async stats(): Promise<OutboxStats> {
      const counts = await run<{ kind: EventKind; status: EventStatus; n: number }>(`SELECT kind, status, COUNT(*)::integer AS n FROM ${T} GROUP BY kind, status`);
      const oldest = await run<{ kind: EventKind; at: Int8 }>(`SELECT kind, MIN(accepted_at) AS at FROM ${T} WHERE status = 'pending' GROUP BY kind`);
      return statsOf(counts.rows, oldest.rows.map((row) => ({ kind: row.kind, at: Number(row.at) })));
    },

    async close(): Promise<void> {
      if (!closed) { closed = true; await release(); }
    },
  };
}
