import { useWithTables, type PostgresDatabase } from '../postgres-open';
import { SUMMARY, summaryFromRow, whereOf, type SummaryRow } from './query';
import { listLimit, type JournalStore } from './store';

/**
 * The request journal in PostgreSQL, in the outbox's database (table `adapter_journal`), read together
 * by every replica. Each batch is one statement per mapping trim plus one multi-row insert.
 */

export async function openPostgresJournal(database: PostgresDatabase, options: { schema?: string } = {}): Promise<JournalStore> {
  const schema = options.schema ?? 'public';
  const S = `"${schema.replaceAll('"', '""')}"`;
  const T = `${S}.adapter_journal`;
  const { pool } = database;
  const release = await useWithTables(database, schema, 'journal-migrate', [
    `CREATE TABLE IF NOT EXISTS ${T} (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text NOT NULL UNIQUE, request_id text NOT NULL, at bigint NOT NULL, mapping text NOT NULL, operation text NOT NULL,
      method text NOT NULL, path text NOT NULL, result text NOT NULL, success boolean NOT NULL, duration_ms double precision NOT NULL,
      request_text text NOT NULL, entry text NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS adapter_journal_mapping_seq ON ${T} (mapping, seq)`,
    `CREATE INDEX IF NOT EXISTS adapter_journal_at ON ${T} (at)`,
  ]);
  return {
    location: `PostgreSQL ${T}`,
    async append(records, keepPerMapping) {
      if (records.length === 0) return;
      const params: unknown[] = [];
      const rows = records.map((r) => {
        const base = params.length;
        params.push(r.id, r.requestId, r.at, r.mapping, r.operation, r.method, r.path, r.result, r.success, r.durationMs, r.requestText, r.entry);
        return `(${Array.from({ length: 12 }, (_, i) => `$${base + i + 1}`).join(', ')})`;
      });
      await pool.query(`INSERT INTO ${T} (id, request_id, at, mapping, operation, method, path, result, success, duration_ms, request_text, entry)
        VALUES ${rows.join(', ')} ON CONFLICT (id) DO NOTHING`, params);
      for (const mapping of new Set(records.map((r) => r.mapping))) {
        await pool.query(`DELETE FROM ${T} WHERE mapping = $1 AND seq < (
          SELECT seq FROM ${T} WHERE mapping = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`, [mapping, keepPerMapping - 1]);
      }
    },
    async list(filter) {
      const { sql, params } = whereOf(filter, (index) => `$${index}`, (value) => value);
      const { rows } = await pool.query<SummaryRow>(`SELECT ${SUMMARY} FROM ${T} ${sql} ORDER BY at DESC, seq DESC LIMIT $${params.length + 1}`, [...params, listLimit(filter)]);
      return rows.map(summaryFromRow);
    },
    async get(id) {
      const { rows } = await pool.query<SummaryRow & { request_text: string; entry: string }>(`SELECT ${SUMMARY}, request_text, entry FROM ${T} WHERE id = $1`, [id]);
      const row = rows[0];
      return row && { ...summaryFromRow(row), requestText: row.request_text, entry: row.entry };
    },
    async close() {
      await release();
    },
  };
}
