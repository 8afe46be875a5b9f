import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * vitest global setup: every temporary file of a test run lives under one directory, removed when the
 * run ends. Tests, the engines they start and the CLI processes they spawn all ask `os.tmpdir()`, which
 * reads TMPDIR; the workers and their children inherit it from here. Before this, each `npm test` left
 * about 240 directories behind (state directories of spawned servers, SQLite outboxes, mapping copies).
 */
export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-tests-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    fs.rmSync(root, { recursive: true, force: true });
  };
}
