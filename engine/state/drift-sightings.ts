import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a server keeps the ERP drift it saw live, with its date: one row per mapping, call and kind
 * with the first and last time seen. `adapter-engine test` reads them to warn when a test's recorded
 * answers are older than what the ERP answers now. Kept in the state store's PostgreSQL when there is
 * one (postgres-drift-sightings.ts: replicas share the rows), else in `drift.json` in the state
 * directory; state-store.ts chooses. Written at most once an hour per row (drift/watch.ts decides).
 */
export interface DriftSeen {
  readonly mapping: string;
  readonly call: string;
  readonly kind: string;
  /** Where in the answer, and what the recordings had and the ERP answered. */
  readonly path: string;
  readonly expected: string;
  readonly got: string;
  /** ISO 8601. */
  readonly firstSeen: string;
  readonly lastSeen: string;
}

/** One sighting as the drift watch reports it: `at` (ISO 8601) becomes the row's last time seen, and its first when the row is new. */
type Sighting = Omit<DriftSeen, 'firstSeen' | 'lastSeen'> & { readonly at: string };

export interface DriftSightings {
  /** Where the rows are kept, for messages. */
  readonly location: string;
  /** Adds or refreshes the row of this mapping, call and kind, keeping its first time seen. */
  keep(sighting: Sighting): Promise<void>;
  read(): Promise<DriftSeen[]>;
  close(): Promise<void>;
}

const FILE = 'drift.json';

function readFile(file: string): DriftSeen[] {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { seen?: DriftSeen[] };
    return Array.isArray(parsed.seen) ? parsed.seen : [];
  } catch {
    // None seen yet (no file), or a file cut by a crash: nothing to warn about.
    return [];
  }
}

/**
 * `drift.json` in the state directory: one machine, rewritten whole (a plain file is enough at one write
 * an hour per row); with several workers the last writer of a row wins, and each tells again within the
 * hour. Read, changed and written synchronously, so two sightings of one process never interleave.
 */
export function driftFile(stateDir: string): DriftSightings {
  const file = path.join(path.resolve(stateDir), FILE);
  return {
    location: file,
    async keep(sighting) {
      const rows = readFile(file);
      const index = rows.findIndex((row) => row.mapping === sighting.mapping && row.call === sighting.call && row.kind === sighting.kind);
      const { at, ...what } = sighting;
      const row: DriftSeen = { ...what, firstSeen: index >= 0 ? rows[index].firstSeen : at, lastSeen: at };
      if (index >= 0) rows[index] = row;
      else rows.push(row);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Written to a temporary file and renamed, so a reader never sees half of it.
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, `${JSON.stringify({ seen: rows }, null, 2)}\n`);
      fs.renameSync(temporary, file);
    },
    async read() {
      return readFile(file);
    },
    async close() {
      // Nothing held open.
    },
  };
}
