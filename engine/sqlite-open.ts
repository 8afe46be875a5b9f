import Database from 'better-sqlite3';

/**
 * How long opening a SQLite file may wait for the other processes that use it (serve --workers, a
 * replica on the same volume): the time a write transaction of theirs may hold the file.
 */
const BUSY_TIMEOUT_MS = 5000;

function isBusy(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'SQLITE_BUSY';
}

/**
 * Opens `file` in WAL mode and runs `prepare` (the schema, its upgrades) on it, waiting for the other
 * processes that open it at the same moment. The busy timeout covers most of that wait, but not all:
 * a connection that read the file and must then lock it for writing (switching a new file to WAL, an
 * upgrade) while another one writes gets SQLITE_BUSY at once, without waiting, since SQLite refuses
 * what could be a deadlock. Two workers starting on a new state directory met it in 5 of 15 tries
 * (test/outbox/concurrent-open.test.ts): the one refused now tries again, up to the busy timeout.
 */
export function openShared(file: string, prepare: (db: Database.Database) => void): Database.Database {
  const db = new Database(file);
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt += 1) {
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      const mode = db.pragma('journal_mode = WAL', { simple: true }) as string;
      if (mode.toLowerCase() !== 'wal') throw new Error(`${file}: SQLite refused WAL journal mode (got ${mode})`);
      prepare(db);
      return db;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) {
        db.close();
        throw error;
      }
      // Opening happens once, before the process serves anything: a short blocking pause is harmless here.
      Atomics.wait(pause, 0, 0, Math.min(10 * attempt, 100));
    }
  }
}
