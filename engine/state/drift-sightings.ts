import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a server keeps the ERP drift it saw live, with its date: `drift.json` in the state directory,
 * one row per mapping, call and kind with the first and last time seen. `adapter-engine test` reads it
 * to warn when a test's recorded answers are older than what the ERP answers now. Written at most once
 * an hour per row (drift/watch.ts tells it so), so a plain file rewritten whole is enough; with several
 * workers the last writer of a row wins, and each tells again within the hour.
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

const FILE = 'drift.json';

export function readDriftSeen(stateDir: string): DriftSeen[] {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(stateDir, FILE), 'utf8')) as { seen?: DriftSeen[] };
    return Array.isArray(parsed.seen) ? parsed.seen : [];
  } catch {
    // None seen yet (no file), or a file cut by a crash: nothing to warn about.
    return [];
  }
}

/** Adds or refreshes the row of this mapping, call and kind; written to a temporary file and renamed, so a reader never sees half of it. */
export function keepDriftSeen(stateDir: string, sighting: { readonly mapping: string; readonly call: string; readonly kind: string; readonly path: string; readonly expected: string; readonly got: string; readonly at: string }): void {
  const rows = readDriftSeen(stateDir);
  const index = rows.findIndex((row) => row.mapping === sighting.mapping && row.call === sighting.call && row.kind === sighting.kind);
  const { at, ...what } = sighting;
  const row: DriftSeen = { ...what, firstSeen: index >= 0 ? rows[index].firstSeen : at, lastSeen: at };
  if (index >= 0) rows[index] = row;
  else rows.push(row);
  fs.mkdirSync(stateDir, { recursive: true });
  const file = path.join(stateDir, FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify({ seen: rows }, null, 2)}\n`);
  fs.renameSync(temporary, file);
}
