import type pg from 'pg';
import { silentLogger, type Logger } from './log';

/**
 * One PostgreSQL database as the state stores use it: one pool, shared by the outbox and the journal of
 * a process (each opened its own before, so every process held two), and ended when the last store
 * that uses it closes.
 */
export interface PostgresDatabase {
  readonly pool: pg.Pool;
  /** The URL without its password, for messages. */
  readonly location: string;
  /** Registers one more store on the pool; the returned function (call it once, on close) ends the pool after the last. */
  use(): () => Promise<void>;
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return url.replace(/(password\s*=\s*)\S+/gi, '$1***');
  }
}

/**
 * `connectTimeoutMs`: how long a new connection may take, for a reader that only warns without it (a
 * database whose packets are dropped would otherwise keep it waiting for ever); none by default, as a
 * serving process's stores wait for the database to come back.
 */
export async function openPostgres(url: string, log: Logger = silentLogger, options: { readonly connectTimeoutMs?: number } = {}): Promise<PostgresDatabase> {
  const location = redact(url);
  // pg is loaded only when a PostgreSQL store is opened: loading it takes 30 ms of every start otherwise.
  const { Pool } = (await import('pg')).default;
  const pool = new Pool({ connectionString: url, ...(options.connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: options.connectTimeoutMs }) });
  // An idle connection that breaks (the server restarted) is dropped by the pool and the next query opens
  // another; without a listener the error would end the process.
  pool.on('error', (error) => log.warn({ err: error, store: location }, 'a PostgreSQL connection of the state store broke; the next query opens another'));
  let users = 0;
  let ended = false;
  return {
    pool,
    location,
    use() {
      if (ended) throw new Error(`the PostgreSQL pool of ${location} is closed`);
      users += 1;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        users -= 1;
        if (users === 0) {
          ended = true;
          await pool.end();
        }
      };
    },
  };
}

/**
 * One client of the pool for `work`, listened to while it is checked out: pg-pool listens for a client's
 * 'error' only while it is idle, so a connection that broke between two queries of a transaction (the
 * database restarted, the network cut) emitted an error nobody heard, which ended the process. The query
 * that follows fails instead, and the broken client is destroyed on release, not pooled again.
 */
export async function withPoolClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/**
 * Registers one more store on the database and creates its tables, in one transaction under an
 * advisory lock named `lock` (two processes starting at once: the second waits, then finds the
 * tables). `statements` run after the schema is created. Returns the store's release (as `use()`);
 * on failure the store is released and the error thrown.
 */
export async function useWithTables(database: PostgresDatabase, schema: string, lock: string, statements: readonly string[]): Promise<() => Promise<void>> {
  const release = database.use();
  try {
    await withPoolClient(database.pool, async (client) => {
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [lock, schema]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replaceAll('"', '""')}"`);
        for (const statement of statements) await client.query(statement);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
