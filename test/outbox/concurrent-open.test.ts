/**
 * serve --workers starts its workers at once, and each opens the state directory's SQLite files. On a
 * new directory one of them got SQLITE_BUSY at once ("database is locked") while switching the file to
 * WAL: SQLite refuses, without waiting, a lock that could deadlock. The worker ended as an engine bug
 * and the server never became ready (seen in CI; 5 of 15 tries with three processes). Here real
 * processes open the outbox and the journal of a new directory at the same instant, round after round.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../engine/paths';

const DIST = path.join(PROJECT_ROOT, 'dist', 'engine');
const ROUNDS = 8;
const PROCESSES = 3;

/** A process that waits for the common instant, then opens both stores, writes one entry, and says how it went. */
const OPENER = `
const { openSqliteStore } = require(${JSON.stringify(path.join(DIST, 'outbox', 'sqlite-store.js'))});
const { openSqliteJournal } = require(${JSON.stringify(path.join(DIST, 'journal', 'sqlite-journal.js'))});
const [dir, at] = process.argv.slice(1);
while (Date.now() < Number(at)) { /* the common start */ }
try {
  const outbox = openSqliteStore(dir);
  const journal = openSqliteJournal(dir);
  Promise.all([outbox.close(), journal.close()]).then(() => console.log('opened'), (error) => console.log('failed', error.code, error.message));
} catch (error) {
  console.log('failed', error.code, error.message);
}
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function open(dir: string, at: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', OPENER, dir, String(at)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', () => resolve(out.trim()));
  });
}

describe('SQLite stores opened by several processes at once', () => {
  it('every process opens a new state directory, none gets "database is locked"', { timeout: 60_000 }, async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'concurrent-open-'));
      dirs.push(dir);
      // Far enough ahead for every process to have started and loaded the modules.
      const at = Date.now() + 700;
      outcomes.push(...(await Promise.all(Array.from({ length: PROCESSES }, () => open(dir, at)))));
    }
    expect(outcomes.filter((outcome) => outcome !== 'opened')).toEqual([]);
    expect(outcomes).toHaveLength(ROUNDS * PROCESSES);
  });
});
