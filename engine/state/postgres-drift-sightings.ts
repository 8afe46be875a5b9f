import { useWithTables, type PostgresDatabase } from '../postgres-open';
import type { DriftSeen, DriftSightings } from './drift-sightings';

/**
 * The ERP drift seen live in PostgreSQL, in the outbox's and the journal's database (table
 * `adapter_drift_seen`), so that every replica adds to the same rows and `adapter-engine test` run
 * anywhere with the same DATABASE_URL reads them all. One row per mapping, call and kind: a sighting is
 * one upsert that keeps the earliest first time and the latest last time, whichever replica tells first.
 */

interface Row {
  mapping: string; call: string; kind: string; path: string; expected: string; got: string; first_seen: Date; last_seen: Date;
}

export async function openPostgresDriftSightings(database: PostgresDatabase, options: { schema?: string } = {}): Promise<DriftSightings> {
  const schema = options.schema ?? 'public';
  const S = `"${schema.replaceAll('"', '""')}"`;
  const T = `${S}.adapter_drift_seen`;
  const { pool } = database;
  const release = await useWithTables(database, schema, 'drift-migrate', [
    `CREATE TABLE IF NOT EXISTS ${T} (
      mapping text NOT NULL, call text NOT NULL, kind text NOT NULL,
      path text NOT NULL, expected text NOT NULL, got text NOT NULL,
      first_seen timestamptz NOT NULL, last_seen timestamptz NOT NULL,
      PRIMARY KEY (mapping, call, kind))`,
  ]);
  return {
    location: `PostgreSQL ${T}`,
    async keep(sighting) {
      // The place and values follow the latest sighting; an older one told late changes nothing but first_seen.
      await pool.query(`INSERT INTO ${T} AS t (mapping, call, kind, path, expected, got, first_seen, last_seen)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
        ON CONFLICT (mapping, call, kind) DO UPDATE SET
          path = CASE WHEN EXCLUDED.last_seen >= t.last_seen THEN EXCLUDED.path ELSE t.path END,
          expected = CASE WHEN EXCLUDED.last_seen >= t.last_seen THEN EXCLUDED.expected ELSE t.expected END,
          got = CASE WHEN EXCLUDED.last_seen >= t.last_seen THEN EXCLUDED.got ELSE t.got END,
          first_seen = LEAST(t.first_seen, EXCLUDED.first_seen),
          last_seen = GREATEST(t.last_seen, EXCLUDED.last_seen)`,
      [sighting.mapping, sighting.call, sighting.kind, sighting.path, sighting.expected, sighting.got, sighting.at]);
    },
    async read() {
      const { rows } = await pool.query<Row>(`SELECT mapping, call, kind, path, expected, got, first_seen, last_seen FROM ${T} ORDER BY mapping, call, kind`);
      return rows.map((row): DriftSeen => ({
        mapping: row.mapping, call: row.call, kind: row.kind, path: row.path, expected: row.expected, got: row.got,
        firstSeen: row.first_seen.toISOString(), lastSeen: row.last_seen.toISOString(),
      }));
    },
    async close() {
      await release();
    },
  };
}
