import pg from 'pg';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { openState } from '../../engine/state/state-store';
import { describeWithPostgres } from '../support/postgres';

/**
 * The state a serving process opens in PostgreSQL: the outbox, the journal and the drift seen on one pool (one
 * connection after opening, not one per store), and a connection the server breaks is logged, not fatal.
 */

async function backends(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`SELECT COUNT(*)::integer AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function breakConnections(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  } finally {
    await client.end();
  }
}

describeWithPostgres('state store on PostgreSQL', (server) => {
  const lines: { msg: string; store?: string }[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closing.splice(0).map((close) => close()));
    lines.length = 0;
  });
  const open = async () => {
    const state = await openState({ outbox: { stateDir: '/nonexistent', databaseUrl: server().url, explicit: true }, initial: { mappings: [] }, journalSize: 10 }, log);
    closing.push(async () => { await state.outbox?.close(); await state.journal.close(); await state.drift.close(); });
    return state;
  };

  it('opens the outbox and the journal on one pool', async () => {
    await breakConnections(server().url);
    const { outbox } = await open();
    expect(outbox?.location).toContain('127.0.0.1');
    // The terminated connections end on the server's own time: asked until they are gone (bounded).
    await expect.poll(() => backends(server().url), { timeout: 5000, interval: 50 }).toBe(1);
  });

  it('logs a connection the server broke, and the next query opens another', async () => {
    const { outbox } = await open();
    await breakConnections(server().url);
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    expect(lines[0].msg).toMatch(/PostgreSQL connection of the state store broke/);
    expect(lines[0].store).not.toContain('password');
    expect(await outbox?.stats()).toBeDefined();
  });

  it('keeps the pool while one store is open, and ends it after the last', async () => {
    const { outbox, journal, drift } = await open();
    await outbox?.close();
    expect(await journal.list({})).toEqual([]);
    await journal.close();
    expect(await drift.read()).toEqual([]);
    await drift.close();
    // A closed connection's server process ends on its own time: asked until it is gone (bounded).
    await expect.poll(() => backends(server().url), { timeout: 5000, interval: 50 }).toBe(0);
  });
});
