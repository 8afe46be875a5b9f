import fs from 'node:fs';
import path from 'node:path';
import { openShared } from '../sqlite-open';
import { SUMMARY, summaryFromRow, whereOf, type SummaryRow } from './query';
import { listLimit, type JournalRecord, type JournalStore } from './store';

/**
 * The request journal in SQLite, beside the outbox in the state directory (`dir/journal.sqlite`, its own
 * file so journal writes never wait on the outbox's synced commits), shared by the workers of one server.
 * Synchronous NORMAL in WAL mode: a crash of the machine may lose the last batch of entries, which a
 * journal can afford; each batch is one short transaction.
 */

const SCHEMA = `CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    request_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    mapping TEXT NOT NULL,
    operation TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    result TEXT NOT NULL,
    success INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    request_text TEXT NOT NULL,
    entry TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS journal_mapping_seq ON journal (mapping, seq);
  CREATE INDEX IF NOT EXISTS journal_at ON journal (at);`;

export function openSqliteJournal(dir: string): JournalStore {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.resolve(dir, 'journal.sqlite');
  const db = openShared(file, (opened) => {
    opened.pragma('synchronous = NORMAL');
    opened.exec(SCHEMA);
  });
  const insert = db.prepare(`INSERT OR IGNORE INTO journal (id, request_id, at, mapping, operation, method, path, result, success, duration_ms, request_text, entry)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // Rows of the mapping older than its newest `keep`: the seq of the keep-th newest row bounds them.
  const trim = db.prepare(`DELETE FROM journal WHERE mapping = ? AND seq < (
    SELECT seq FROM journal WHERE mapping = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`);
  const byId = db.prepare<[string], SummaryRow & { request_text: string; entry: string }>(`SELECT ${SUMMARY}, request_text, entry FROM journal WHERE id = ?`);
  const append = db.transaction((records: readonly JournalRecord[], keep: number) => {
    for (const r of records) insert.run(r.id, r.requestId, r.at, r.mapping, r.operation, r.method, r.path, r.result, r.success ? 1 : 0, r.durationMs, r.requestText, r.entry);
    for (const mapping of new Set(records.map((r) => r.mapping))) trim.run(mapping, mapping, keep - 1);
  });
  return {
    location: file,
    async append(records, keepPerMapping) {
      append.immediate(records, keepPerMapping);
    },
    async list(filter) {
      const { sql, params } = whereOf(filter, () => '?', (value) => (value ? 1 : 0));
      const rows = db.prepare(`SELECT ${SUMMARY} FROM journal ${sql} ORDER BY at DESC, seq DESC LIMIT ?`).all(...params, listLimit(filter)) as SummaryRow[];
      return rows.map(summaryFromRow);
    },
    async get(id) {
      const row = byId.get(id);
      return row && { ...summaryFromRow(row), requestText: row.request_text, entry: row.entry };
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
