import fs from 'node:fs';
import { parse } from 'yaml';
import type { DriftSeen } from '../state/drift-sightings';
import { readTestFile } from '../testing/test-file';

/**
 * What `adapter-engine test` warns of: a test file whose recorded answers of a call are older than the
 * drift a server saw live in that call's answers (`seen`: kept with its date where the server keeps its
 * state), so the recordings no longer show what the ERP sends: refresh them with `record`.
 */
export function driftWarnings(testFile: string, seen: readonly DriftSeen[]): string[] {
  if (seen.length === 0) return [];
  const read = readTestFile(testFile);
  if (!read.file || read.mappingPath === undefined || !fs.existsSync(read.mappingPath)) return [];
  const name = (parse(fs.readFileSync(read.mappingPath, 'utf8')) as { name?: unknown } | null)?.name;
  const calls = new Set(read.file.cases.flatMap((testCase) => Object.keys(testCase.answers ?? {})));
  const recordedAt = fs.statSync(testFile).mtimeMs;
  return seen
    .filter((row: DriftSeen) => row.mapping === name && calls.has(row.call) && Date.parse(row.lastSeen) > recordedAt)
    .map((row) => `warning: the recorded answers of call ${row.call} are older than what the ERP answered live on ${row.lastSeen} (${row.kind} at ${row.path}: recorded ${row.expected}, live ${row.got}); refresh them with adapter-engine record`);
}
