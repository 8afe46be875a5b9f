import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, readSqliteSettings } from '../../engine/outbox/sqlite-store';
import type { NewEvent, OutboxStore } from '../../engine/outbox/store';
import { describeStoreBehaviour } from './store-behaviour';

/** The SQLite outbox: the shared behaviour, plus durability, pragmas and several processes on one file. */

const T0 = 1_700_000_000_000;

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-sqlite-'));
}

let behaviourDir: string | undefined;
describeStoreBehaviour(
  'SQLite',
  async () => {
    behaviourDir = tempDir();
    return openSqliteStore(behaviourDir);
  },
  async () => {
    if (behaviourDir) fs.rmSync(behaviourDir, { recursive: true, force: true });
    behaviourDir = undefined;
  },
);

function newEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  return {
    id: randomUUID(), mapping: 'm1', operation: 'ConfirmPutWallPlacement', orderingKey: 'k', input: { a: 1 },
    requestId: 'r', acceptedAt: T0, blocksKeyWhenDead: true, ...overrides,
  };
}

describe('SQLite outbox store', () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  function dir(): string {
    const d = tempDir();
    cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
    return d;
  }
  function open(d: string): OutboxStore {
    const store = openSqliteStore(d);
    cleanups.push(() => store.close());
    return store;
  }

  it('creates the directory and keeps the file at dir/outbox.sqlite', async () => {
    const d = path.join(dir(), 'nested', 'outbox');
    const store = open(d);
    expect(store.location).toBe(path.join(d, 'outbox.sqlite'));
    expect(fs.existsSync(store.location)).toBe(true);
  });

  it('keeps the events across close and reopen', async () => {
    const d = dir();
    const first = openSqliteStore(d);
    const a = await first.enqueue(newEvent({ input: { text: 'ü', list: [1, { x: null }] } }));
    const b = await first.enqueue(newEvent());
    await first.claimDue({ now: T0, limit: 10, leaseMs: 1000, owner: 'w1' });
    await first.dead(a.id, 'w1', T0 + 1, { error: 'refused', status: 422 });
    await first.close();
    const second = open(d);
    expect(await second.get(a.id)).toMatchObject({ ...a, status: 'dead', attempts: 1, settledAt: T0 + 1, last: { error: 'refused', status: 422 } });
    expect(await second.get(b.id)).toEqual(b);
    const c = await second.enqueue(newEvent());
    expect(c.seq).toBeGreaterThan(b.seq);
  });

  it('writes with WAL, synchronous FULL and a busy timeout, and records the schema version', async () => {
    const store = open(dir());
    expect(readSqliteSettings(store)).toEqual({ journalMode: 'wal', synchronous: 2, busyTimeoutMs: 5000, schemaVersion: 5 });
    // WAL is a property of the file: another connection sees it too.
    const db = new Database(store.location, { readonly: true });
    cleanups.push(() => { db.close(); });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    await store.close();
    expect(readSqliteSettings(store)).toBeUndefined();
  });

  /** Version 1 as the engine first wrote it (the table, the two indexes of then), with three events of one key. */
  const VERSION_1 = `CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, mapping TEXT NOT NULL,
      operation TEXT NOT NULL, ordering_key TEXT NOT NULL, input TEXT, request_id TEXT NOT NULL, accepted_at INTEGER NOT NULL,
      blocks_key_when_dead INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'dropped')),
      attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, last TEXT, settled_at INTEGER, drop_reason TEXT,
      lease_owner TEXT, lease_until INTEGER);
      CREATE INDEX events_status_seq ON events (status, seq);
      CREATE INDEX events_key_seq ON events (mapping, ordering_key, seq);
      INSERT INTO events (id, mapping, operation, ordering_key, input, request_id, accepted_at, blocks_key_when_dead, status, next_attempt_at)
        VALUES ('a', 'm1', 'Op', 'k', '{"n":1}', 'r', ${T0}, 1, 'delivered', ${T0}), ('b', 'm1', 'Op', 'k', '{"n":2}', 'r', ${T0}, 1, 'pending', ${T0}),
               ('c', 'm1', 'Op', 'k', '{"n":3}', 'r', ${T0}, 1, 'pending', ${T0});`;
  /** Version 2 added the partial index the claim walks. */
  const VERSION_2 = `${VERSION_1}
      CREATE INDEX events_blocking ON events (mapping, ordering_key, seq) WHERE (status = 'pending' OR (status = 'dead' AND blocks_key_when_dead = 1));`;

  /** What the push endpoints' branch wrote as version 2 before its release: version 1 with kind and push receipts, no claim index. */
  const PUSH_BRANCH_2 = `${VERSION_1}
      ALTER TABLE events ADD COLUMN kind TEXT NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'push'));
      CREATE TABLE push_receipts (mapping TEXT NOT NULL, push TEXT NOT NULL, idempotency_key TEXT NOT NULL, event_ids TEXT NOT NULL,
        accepted_at INTEGER NOT NULL, PRIMARY KEY (mapping, push, idempotency_key));
      CREATE INDEX push_receipts_accepted ON push_receipts (accepted_at);`;

  it.each([[1, VERSION_1], [2, VERSION_2], [2, PUSH_BRANCH_2]])('brings a file of schema version %i up to date (5), keeping its events as kind event; claims from the index, takes pushes and settles refused', async (version, schema) => {
    const d = dir();
    const file = path.join(d, 'outbox.sqlite');
    const old = new Database(file);
    old.exec(schema);
    old.pragma(`user_version = ${version}`);
    old.close();
    const store = open(d);
    expect(readSqliteSettings(store)?.schemaVersion).toBe(5);
    expect((await store.claimDue({ now: T0, limit: 10, leaseMs: 1000, owner: 'w1' })).map((e) => [e.id, e.kind, e.input])).toEqual([['b', 'event', { n: 2 }]]);
    const trace = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const push = { mapping: 'm1', push: 'NewOrder', idempotencyKey: 'SO-1', acceptedAt: T0, events: [newEvent({ kind: 'push', operation: 'NewOrder', orderingKey: 'p', trace })] };
    expect(await store.enqueuePush(push)).toEqual({ eventIds: [push.events[0].id], duplicate: false });
    expect(await store.enqueuePush({ ...push, events: [newEvent({ kind: 'push' })] })).toEqual({ eventIds: [push.events[0].id], duplicate: true });
    // Version 4: the trace context of the request that stored an event.
    expect((await store.get(push.events[0].id))?.trace).toEqual(trace);
    const db = new Database(file, { readonly: true });
    cleanups.push(() => { db.close(); });
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'events_blocking'`).all()).toHaveLength(1);
    // Version 5: status refused, on the table written anew; seq goes on after the old events.
    expect(await store.refused('b', 'w1', T0 + 1, { error: 'closed' })).toBe(true);
    expect(await store.get('b')).toMatchObject({ status: 'refused', settledAt: T0 + 1 });
    expect((await store.enqueue(newEvent({ orderingKey: 'after' }))).seq).toBeGreaterThan((await store.get('b'))?.seq ?? Infinity);
  });

  it('refuses a file written by a newer schema version', async () => {
    const d = dir();
    const db = new Database(path.join(d, 'outbox.sqlite'));
    db.pragma('user_version = 99');
    db.close();
    expect(() => openSqliteStore(d)).toThrow(/schema version 99/);
  });

  it('two store objects on one file (two worker processes) never claim the same event', async () => {
    const d = dir();
    const one = open(d);
    const two = open(d);
    const events = Array.from({ length: 80 }, (_, i) => newEvent({ orderingKey: `k${i % 25}` }));
    for (const [i, event] of events.entries()) await (i % 2 === 0 ? one : two).enqueue(event);
    const seen = new Set<string>();
    let now = T0;
    for (let round = 0; round < 100 && seen.size < events.length; round++) {
      const [a, b] = await Promise.all([
        one.claimDue({ now, limit: 3, leaseMs: 10_000, owner: 'p1' }),
        two.claimDue({ now, limit: 3, leaseMs: 10_000, owner: 'p2' }),
      ]);
      now += 1;
      for (const event of a) { expect(seen.has(event.id)).toBe(false); seen.add(event.id); }
      for (const event of b) { expect(seen.has(event.id)).toBe(false); seen.add(event.id); }
      for (const event of a) expect(await two.delivered(event.id, 'p1', now)).toBe(true);
      for (const event of b) expect(await one.delivered(event.id, 'p2', now)).toBe(true);
    }
    expect(seen.size).toBe(events.length);
    expect(await one.stats()).toMatchObject({ pending: 0, delivered: events.length });
  });

  it('keeps every enqueue that resolved when the process is killed with SIGKILL', async () => {
    const d = dir();
    const compiled = path.resolve(__dirname, '..', '..', 'dist', 'engine', 'outbox', 'sqlite-store.js');
    const source = path.resolve(__dirname, '..', '..', 'engine', 'outbox', 'sqlite-store.ts');
    if (!fs.existsSync(compiled) || fs.statSync(compiled).mtimeMs < fs.statSync(source).mtimeMs) {
      throw new Error(`${compiled} is missing or older than its source: run npm run build`);
    }
    // The writer prints an id only after its enqueue resolved; the loop is bounded in case nobody kills it.
    const code = `
      const { openSqliteStore } = require(process.env.OUTBOX_MODULE);
      const { randomUUID } = require('node:crypto');
      const store = openSqliteStore(process.env.OUTBOX_DIR);
      (async () => {
        for (let i = 0; i < 20000; i++) {
          const id = randomUUID();
          await store.enqueue({ id, mapping: 'm', operation: 'Op', orderingKey: 'k' + (i % 7), input: { i, text: 'crash ü' },
            requestId: 'r' + i, acceptedAt: Date.now(), blocksKeyWhenDead: true });
          process.stdout.write(id + '\\n');
        }
      })().catch((err) => { console.error(err); process.exit(1); });`;
    const child = spawn(process.execPath, ['-e', code], {
      env: { ...process.env, OUTBOX_MODULE: compiled, OUTBOX_DIR: d },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on('close', (code, signal) => resolve({ code, signal }));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.split('\n').length > 50 && child.signalCode === null) child.kill('SIGKILL');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const { code: exitCode, signal } = await closed;
    clearTimeout(timer);
    expect({ exitCode, signal, err }).toEqual({ exitCode: null, signal: 'SIGKILL', err: '' });
    // Only whole lines: the last one may have been cut by the kill.
    const printed = out.split('\n').slice(0, -1);
    expect(printed.length).toBeGreaterThanOrEqual(50);
    expect(printed.length).toBeLessThan(20000);
    const store = open(d);
    const missing: string[] = [];
    for (const id of printed) {
      const event = await store.get(id);
      if (event?.status !== 'pending') missing.push(id);
    }
    expect(missing).toEqual([]);
    expect((await store.stats()).pending).toBeGreaterThanOrEqual(printed.length);
  });
});
