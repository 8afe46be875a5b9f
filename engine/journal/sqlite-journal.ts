import fs from 'node:fs';
import path from 'node:path';
import { openShared } from '../sqlite-open';
import { listLimit, type JournalFilter, type JournalRecord, type JournalStore, type JournalSummary } from './store';

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

const SUMMARY = 'id, request_id, at, mapping, operation, method, path, result, success, duration_ms';

export interface SummaryRow {
  id: string; request_id: string; at: number | string; mapping: string; operation: string; method: string; path: string;
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  result: string; success: number | boolean; duration_ms: number;
}

export function summaryFromRow(row: SummaryRow): JournalSummary {
  return {
    id: row.id, requestId: row.request_id, at: Number(row.at), mapping: row.mapping, operation: row.operation, method: row.method,
    path: row.path, result: row.result, success: row.success === true || row.success === 1, durationMs: Number(row.duration_ms),
  };
}

/** The WHERE clause of a filter and its parameters, in the database's placeholders and truth values. */
export function whereOf(filter: JournalFilter, placeholder: (index: number) => string, truth: (value: boolean) => unknown): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', placeholder(params.length)));
  };
  if (filter.mapping !== undefined) add('mapping = ?', filter.mapping);
  if (filter.operation !== undefined) add('operation = ?', filter.operation);
  if (filter.result !== undefined) add('result = ?', filter.result);
  if (filter.success !== undefined) add('success = ?', truth(filter.success));
  if (filter.from !== undefined) add('at >= ?', filter.from);
  if (filter.to !== undefined) add('at <= ?', filter.to);
  if (filter.contains !== undefined) add(`request_text LIKE ? ESCAPE '\\'`, `%${filter.contains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return { sql: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
}

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
