import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {
  AttemptOutcome, ClaimOptions, EventKind, EventStatus, LeaseOptions, ListFilter, NewEvent, NewPush, OutboxStats, OutboxStore, PushReceipt, StoredEvent,
} from './store';
import { openShared } from '../sqlite-open';
import { listOrderSql, statsOf, traceOf } from './store';

/**
 * The outbox in one SQLite file (`dir/outbox.sqlite`), shared by the worker processes of one server.
 * WAL with synchronous FULL: a committed enqueue is on disk (kill -9, power loss) before it resolves
 * (claims and delivery outcomes are relaxed, see `relaxed`).
 * Claims run in BEGIN IMMEDIATE transactions, so two processes never lease the same event; the busy
 * timeout lets them wait for each other's short write transactions instead of failing.
 * better-sqlite3 is synchronous; the methods are async only to share the interface with PostgreSQL, and
 * every SQLite error (SQLITE_FULL, SQLITE_BUSY after the timeout, ...) rejects the returned promise.
 */

const SCHEMA_VERSION = 5;

/**
 * An event holds back the later events of its key while it is pending (leased or not) or dead and
 * blocking; the first of these per key is the only one a claim may hand out. Written the same way in the
 * partial index and the claim, so SQLite's planner sees that the index covers the claim's condition.
 */
const BLOCKING = `(status = 'pending' OR (status = 'dead' AND blocks_key_when_dead = 1))`;

/** Each step brings the schema from version i to i + 1. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     mapping TEXT NOT NULL,
     operation TEXT NOT NULL,
     ordering_key TEXT NOT NULL,
     input TEXT,
     request_id TEXT NOT NULL,
     accepted_at INTEGER NOT NULL,
     blocks_key_when_dead INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'dropped')),
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     last TEXT,
     settled_at INTEGER,
     drop_reason TEXT,
     lease_owner TEXT,
     lease_until INTEGER
   );
   CREATE INDEX events_status_seq ON events (status, seq);
   CREATE INDEX events_key_seq ON events (mapping, ordering_key, seq);`,
  // The events that hold their key (BLOCKING): a claim finds the first of each key here instead of
  // looking past every pending event of a key and every delivered one before it.
  `CREATE INDEX events_blocking ON events (mapping, ordering_key, seq) WHERE ${BLOCKING};`,
  // 3: the ERP's pushes, delivered to the platform, share the table; a push's idempotency key is kept with its event ids.
  `ALTER TABLE events ADD COLUMN kind TEXT NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'push'));
   CREATE TABLE push_receipts (
     mapping TEXT NOT NULL,
     push TEXT NOT NULL,
     idempotency_key TEXT NOT NULL,
     event_ids TEXT NOT NULL,
     accepted_at INTEGER NOT NULL,
     PRIMARY KEY (mapping, push, idempotency_key)
   );
   CREATE INDEX push_receipts_accepted ON push_receipts (accepted_at);`,
  // 4: the W3C trace context of the request that stored the event, continued by its delivery.
  `ALTER TABLE events ADD COLUMN traceparent TEXT;
   ALTER TABLE events ADD COLUMN tracestate TEXT;`,
  // 5: status refused (a first try the ERP refused while the platform waited). SQLite cannot change a
  // CHECK constraint in place: the table is written anew, seq kept, and its indexes made again.
  `CREATE TABLE events_v5 (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     mapping TEXT NOT NULL,
     operation TEXT NOT NULL,
     ordering_key TEXT NOT NULL,
     input TEXT,
     request_id TEXT NOT NULL,
     accepted_at INTEGER NOT NULL,
     blocks_key_when_dead INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'dropped', 'refused')),
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     last TEXT,
     settled_at INTEGER,
     drop_reason TEXT,
     lease_owner TEXT,
     lease_until INTEGER,
     kind TEXT NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'push')),
     traceparent TEXT,
     tracestate TEXT
   );
   INSERT INTO events_v5 (seq, id, mapping, operation, ordering_key, input, request_id, accepted_at, blocks_key_when_dead, status,
     attempts, next_attempt_at, last, settled_at, drop_reason, lease_owner, lease_until, kind, traceparent, tracestate)
   SELECT seq, id, mapping, operation, ordering_key, input, request_id, accepted_at, blocks_key_when_dead, status,
     attempts, next_attempt_at, last, settled_at, drop_reason, lease_owner, lease_until, kind, traceparent, tracestate FROM events;
   DROP TABLE events;
   ALTER TABLE events_v5 RENAME TO events;
   CREATE INDEX events_status_seq ON events (status, seq);
   CREATE INDEX events_key_seq ON events (mapping, ordering_key, seq);
   CREATE INDEX events_blocking ON events (mapping, ordering_key, seq) WHERE ${BLOCKING};`,
];

interface EventRow {
  seq: number; id: string; kind: EventKind; mapping: string; operation: string; ordering_key: string; input: string | null;
  request_id: string; accepted_at: number; blocks_key_when_dead: number; status: EventStatus; attempts: number;
  next_attempt_at: number; last: string | null; settled_at: number | null; drop_reason: string | null;
  traceparent: string | null; tracestate: string | null;
}

function toEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    kind: row.kind,
    mapping: row.mapping,
    operation: row.operation,
    orderingKey: row.ordering_key,
    input: row.input === null ? undefined : JSON.parse(row.input) as unknown,
    requestId: row.request_id,
    acceptedAt: row.accepted_at,
    blocksKeyWhenDead: row.blocks_key_when_dead === 1,
    seq: row.seq,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    ...(row.last === null ? {} : { last: JSON.parse(row.last) as AttemptOutcome }),
    ...(row.settled_at === null ? {} : { settledAt: row.settled_at }),
    ...(row.drop_reason === null ? {} : { dropReason: row.drop_reason }),
    ...traceOf(row),
  };
}

function outcomeJson(outcome: AttemptOutcome): string {
  return JSON.stringify({ error: outcome.error, call: outcome.call, status: outcome.status, body: outcome.body });
}

function migrate(db: Database.Database, file: string): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(`${file} has outbox schema version ${version}; this engine knows up to ${SCHEMA_VERSION}`);
    }
    // Before release, the push endpoints' branch numbered its step (kind, push receipts) 2: such a file
    // (from `npm start` of that branch) has the kind column and lacks the claim's index, which is all it needs.
    const pushedEarly = version === 2 && (db.pragma('table_info(events)') as { name: string }[]).some((column) => column.name === 'kind');
    if (pushedEarly) db.exec(MIGRATIONS[1]);
    // Such a file then stands at version 3 and takes the steps after it.
    for (let v = pushedEarly ? 3 : version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

const COLUMNS = `seq, id, kind, mapping, operation, ordering_key, input, request_id, accepted_at, blocks_key_when_dead,
  status, attempts, next_attempt_at, last, settled_at, drop_reason, traceparent, tracestate`;

/** The connection settings a SQLite store actually runs with, read back from its connection (for tests, diagnostics). */
export interface SqliteSettings {
  readonly journalMode: string;
  /** 2 is FULL. */
  readonly synchronous: number;
  readonly busyTimeoutMs: number;
  readonly schemaVersion: number;
}

const connections = new WeakMap<OutboxStore, Database.Database>();

/** Undefined when `store` is not an open SQLite store. */
export function readSqliteSettings(store: OutboxStore): SqliteSettings | undefined {
  const db = connections.get(store);
  if (!db?.open) return undefined;
  return {
    journalMode: db.pragma('journal_mode', { simple: true }) as string,
    synchronous: db.pragma('synchronous', { simple: true }) as number,
    busyTimeoutMs: db.pragma('busy_timeout', { simple: true }) as number,
    schemaVersion: db.pragma('user_version', { simple: true }) as number,
  };
}

/** The store's statements, prepared once per opened file. */
function prepareStatements(db: Database.Database) {
  const insert = db.prepare(`INSERT INTO events (id, kind, mapping, operation, ordering_key, input, request_id, accepted_at,
    blocks_key_when_dead, status, attempts, next_attempt_at, traceparent, tracestate) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`);
  const receiptOf = db.prepare<[string, string, string], { event_ids: string }>(`SELECT event_ids FROM push_receipts
    WHERE mapping = ? AND push = ? AND idempotency_key = ?`);
  const insertReceipt = db.prepare(`INSERT INTO push_receipts (mapping, push, idempotency_key, event_ids, accepted_at) VALUES (?, ?, ?, ?, ?)`);
  const purgeReceipts = db.prepare(`DELETE FROM push_receipts WHERE accepted_at < ? AND NOT EXISTS (
    SELECT 1 FROM json_each(push_receipts.event_ids) j JOIN events e ON e.id = j.value)`);
  const byId = db.prepare<[string], EventRow>(`SELECT ${COLUMNS} FROM events WHERE id = ?`);
  // Claimable events are the first BLOCKING event of each key that is pending, due and not leased. The
  // keys are walked through the partial index (a loose index scan: one seek per key that has any), so a
  // claim costs the number of such keys, not the number of events waiting behind them. The next key is
  // the next ordering key of the same mapping, else the first of the next mapping: two seeks SQLite
  // serves from the index (a row-value comparison over both columns would scan the whole mapping).
  const next = (where: string) => `(SELECT n.seq FROM events n INDEXED BY events_blocking WHERE ${BLOCKING} AND ${where}
    ORDER BY n.mapping, n.ordering_key, n.seq LIMIT 1)`;
  const due = db.prepare<[number, number, number], EventRow>(`WITH RECURSIVE heads(head) AS (
      SELECT ${next('1')}
      UNION ALL
      SELECT COALESCE(${next('n.mapping = h.mapping AND n.ordering_key > h.ordering_key')}, ${next('n.mapping > h.mapping')})
      FROM heads JOIN events h ON h.seq = heads.head)
    SELECT ${COLUMNS} FROM heads CROSS JOIN events e ON e.seq = heads.head
    WHERE e.status = 'pending' AND e.next_attempt_at <= ? AND (e.lease_until IS NULL OR e.lease_until < ?)
    ORDER BY e.seq LIMIT ?`);
  const lease = db.prepare(`UPDATE events SET lease_owner = ?, lease_until = ?, attempts = attempts + 1 WHERE seq = ?`);
  const settledDelivered = db.prepare(`UPDATE events SET status = 'delivered', settled_at = ?, last = COALESCE(?, last), lease_owner = NULL,
    lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'pending'`);
  const settledLater = db.prepare(`UPDATE events SET next_attempt_at = ?, last = ?, lease_owner = NULL,
    lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'pending'`);
  // Whether an earlier event holds the key back (BLOCKING): then a new event is not tried first.
  const keyHeld = db.prepare<[string, string], { seq: number }>(`SELECT seq FROM events INDEXED BY events_blocking
    WHERE ${BLOCKING} AND mapping = ? AND ordering_key = ? LIMIT 1`);
  const settledRefused = db.prepare(`UPDATE events SET status = 'refused', settled_at = ?, last = ?, lease_owner = NULL,
    lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'pending'`);
  const settledDead = db.prepare(`UPDATE events SET status = 'dead', settled_at = ?, last = ?, lease_owner = NULL,
    lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'pending'`);
  const retryDead = db.prepare(`UPDATE events SET status = 'pending', next_attempt_at = ?, settled_at = NULL,
    lease_owner = NULL, lease_until = NULL WHERE id = ? AND status = 'dead'`);
  // Only the time: an attempt in flight keeps its lease, so the event is not sent twice at once.
  const duePending = db.prepare(`UPDATE events SET next_attempt_at = ? WHERE id = ? AND status = 'pending'`);
  const byPrefix = db.prepare<[number, string, number], { id: string }>(`SELECT id FROM events WHERE substr(id, 1, ?) = ? ORDER BY seq LIMIT ?`);
  const dropEvent = db.prepare(`UPDATE events SET status = 'dropped', drop_reason = ?, settled_at = ?,
    lease_owner = NULL, lease_until = NULL WHERE id = ? AND status IN ('pending', 'dead')`);
  const purgeSettled = db.prepare(`DELETE FROM events WHERE status IN ('delivered', 'dropped', 'refused') AND settled_at < ?`);
  const counts = db.prepare<[], { kind: EventKind; status: EventStatus; n: number }>(`SELECT kind, status, COUNT(*) AS n FROM events GROUP BY kind, status`);
  const oldest = db.prepare<[], { kind: EventKind; at: number }>(`SELECT kind, MIN(accepted_at) AS at FROM events WHERE status = 'pending' GROUP BY kind`);
  return { insert, receiptOf, insertReceipt, purgeReceipts, byId, due, lease, keyHeld, settledDelivered, settledLater, settledRefused, settledDead, retryDead, duePending, byPrefix, dropEvent, purgeSettled, counts, oldest };
}

export function openSqliteStore(dir: string): OutboxStore {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.resolve(dir, 'outbox.sqlite');
  const db = openShared(file, (opened) => {
    opened.pragma('synchronous = FULL');
    migrate(opened, file);
  });

  const { insert, receiptOf, insertReceipt, purgeReceipts, byId, due, lease, keyHeld, settledDelivered, settledLater, settledRefused, settledDead, retryDead, duePending, byPrefix, dropEvent, purgeSettled, counts, oldest } = prepareStatements(db);

  const claim = db.transaction((options: ClaimOptions): StoredEvent[] => {
    const rows = due.all(options.now, options.now, options.limit);
    for (const row of rows) lease.run(options.owner, options.now + options.leaseMs, row.seq);
    return rows.map((row) => toEvent({ ...row, attempts: row.attempts + 1 }));
  });

  /**
   * Group commit: the enqueues of one turn of the event loop are written in one transaction, so one
   * fsync (synchronous FULL) serves them all; each still resolves only once it is on disk. A batch that
   * fails is written again one event at a time, so one bad event cannot fail the others.
   */
  type Waiting = { readonly event: NewEvent; readonly lease?: LeaseOptions; claimed?: boolean; resolve(stored: { event: StoredEvent; claimed: boolean }): void; reject(error: unknown): void };
  let waiting: Waiting[] = [];
  /** Inserts the event; with a lease, leases it at once when no earlier event holds its key (in the same transaction). */
  const insertOne = (event: NewEvent, given?: LeaseOptions): boolean => {
    const input = event.input === undefined ? null : JSON.stringify(event.input);
    const free = given !== undefined && keyHeld.get(event.mapping, event.orderingKey) === undefined;
    const { lastInsertRowid } = insert.run(event.id, event.kind ?? 'event', event.mapping, event.operation, event.orderingKey, input, event.requestId,
      event.acceptedAt, event.blocksKeyWhenDead ? 1 : 0, event.acceptedAt, event.trace?.traceparent ?? null, event.trace?.tracestate ?? null);
    if (free) lease.run(given.owner, given.now + given.leaseMs, lastInsertRowid);
    return free;
  };
  const insertAll = db.transaction((batch: Waiting[]) => {
    for (const entry of batch) entry.claimed = insertOne(entry.event, entry.lease);
  });
  const storePush = db.transaction((push: NewPush): PushReceipt => {
    const earlier = receiptOf.get(push.mapping, push.push, push.idempotencyKey);
    if (earlier) return { eventIds: JSON.parse(earlier.event_ids) as string[], duplicate: true };
    for (const event of push.events) insertOne(event, undefined);
    const eventIds = push.events.map((event) => event.id);
    insertReceipt.run(push.mapping, push.push, push.idempotencyKey, JSON.stringify(eventIds), push.acceptedAt);
    return { eventIds, duplicate: false };
  });
  const stored = (entry: Waiting) => {
    const row = byId.get(entry.event.id);
    if (row) entry.resolve({ event: toEvent(row), claimed: entry.claimed === true });
    else entry.reject(new Error(`${file}: event ${entry.event.id} not found right after it was stored`));
  };
  function flush(): void {
    const batch = waiting;
    waiting = [];
    try {
      insertAll.immediate(batch);
      for (const entry of batch) stored(entry);
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const entry of batch) {
        try {
          insertAll.immediate([entry]);
          stored(entry);
        } catch (single) {
          entry.reject(single);
        }
      }
    }
  }

  /**
   * Claims and delivery outcomes are committed without waiting for the disk (synchronous NORMAL: safe
   * against a crash of the process, not a power cut). Losing one to a power cut only delivers an event
   * again, which at-least-once delivery allows; the next enqueue's FULL commit syncs them anyway. This
   * saves two of the three fsyncs per event. Enqueues and the decisions of support staff stay FULL.
   */
  const relaxed = <T>(work: () => T): T => {
    db.pragma('synchronous = NORMAL');
    try {
      return work();
    } finally {
      db.pragma('synchronous = FULL');
    }
  };

  const enqueued = (event: NewEvent, lease: LeaseOptions | undefined) => new Promise<{ event: StoredEvent; claimed: boolean }>((resolve, reject) => {
    waiting.push({ event, lease, resolve, reject });
    if (waiting.length === 1) setImmediate(flush);
  });

  const store: OutboxStore = {
    location: file,

    async enqueue(event: NewEvent): Promise<StoredEvent> {
      return (await enqueued(event, undefined)).event;
    },

    enqueueClaimed(event: NewEvent, lease: LeaseOptions) {
      return enqueued(event, lease);
    },

    async enqueuePush(push: NewPush): Promise<PushReceipt> {
      return storePush.immediate(push);
    },

    async claimDue(options: ClaimOptions): Promise<StoredEvent[]> {
      if (options.limit <= 0) return [];
      return relaxed(() => claim.immediate(options));
    },

    async delivered(id: string, owner: string, at: number, answer?: AttemptOutcome): Promise<boolean> {
      return relaxed(() => settledDelivered.run(at, answer ? outcomeJson(answer) : null, id, owner).changes === 1);
    },

    async retryLater(id: string, owner: string, nextAttemptAt: number, outcome: AttemptOutcome): Promise<boolean> {
      return relaxed(() => settledLater.run(nextAttemptAt, outcomeJson(outcome), id, owner).changes === 1);
    },

    async refused(id: string, owner: string, at: number, outcome: AttemptOutcome): Promise<boolean> {
      return relaxed(() => settledRefused.run(at, outcomeJson(outcome), id, owner).changes === 1);
    },

    async dead(id: string, owner: string, at: number, outcome: AttemptOutcome): Promise<boolean> {
      return relaxed(() => settledDead.run(at, outcomeJson(outcome), id, owner).changes === 1);
    },

    async get(id: string): Promise<StoredEvent | undefined> {
      const row = byId.get(id);
      return row ? toEvent(row) : undefined;
    },

    async list(filter: ListFilter): Promise<StoredEvent[]> {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (filter.status !== undefined) {
        if (filter.status.length === 0) return [];
        where.push(`status IN (${filter.status.map(() => '?').join(', ')})`);
        params.push(...filter.status);
      }
      if (filter.kind !== undefined) { where.push('kind = ?'); params.push(filter.kind); }
      if (filter.mapping !== undefined) { where.push('mapping = ?'); params.push(filter.mapping); }
      if (filter.operation !== undefined) { where.push('operation = ?'); params.push(filter.operation); }
      if (filter.orderingKey !== undefined) { where.push('ordering_key = ?'); params.push(filter.orderingKey); }
      if (filter.acceptedBefore !== undefined) { where.push('accepted_at < ?'); params.push(filter.acceptedBefore); }
      params.push(filter.limit ?? 100);
      const sql = `SELECT ${COLUMNS} FROM events ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ${listOrderSql(filter.order)} LIMIT ?`;
      return db.prepare<(string | number)[], EventRow>(sql).all(...params).map(toEvent);
    },

    async retry(id: string, now: number): Promise<'dead' | 'pending' | undefined> {
      if (retryDead.run(now, id).changes === 1) return 'dead';
      return duePending.run(now, id).changes === 1 ? 'pending' : undefined;
    },

    async idsStartingWith(prefix: string, limit: number): Promise<string[]> {
      return byPrefix.all(prefix.length, prefix, limit).map((row) => row.id);
    },

    async drop(id: string, reason: string, now: number): Promise<boolean> {
      return dropEvent.run(reason, now, id).changes === 1;
    },

    async purge(before: number): Promise<number> {
      return db.transaction(() => {
        const removed = purgeSettled.run(before).changes;
        purgeReceipts.run(before);
        return removed;
      }).immediate();
    },

    async stats(): Promise<OutboxStats> {
      return statsOf(counts.all(), oldest.all());
    },

    async close(): Promise<void> {
      if (db.open) db.close();
    },
  };
  connections.set(store, db);
  return store;
}
