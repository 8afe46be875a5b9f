import { findRoute } from '../contract/routes';
import type { JournalEntry } from '../journal/journal-entry';
import { readTestFile } from './test-file';
import { inputOf, testCaseOf } from './recorded-case';
import { resolveOperation } from './resolve-operation';
import type { ReplayCase } from './replay';
import type { MappingIssue } from '../errors';
import { displayName } from '../mapping/yaml-file';

/**
 * Where replayed requests come from: journal entries (a `requests export --all` file, or a running
 * server's admin listener) and the cases of mapping test files. A journal entry becomes a case the way
 * `requests export --as-test` makes one (testCaseOf), so both read the recorded answers alike.
 */

/** A recorded request that cannot be replayed, and why. */
export interface LeftOut {
  readonly source: string;
  readonly reason: string;
}

export interface Replayable {
  readonly cases: ReplayCase[];
  readonly leftOut: LeftOut[];
}

export function casesFromEntries(entries: readonly JournalEntry[]): Replayable {
  const cases: ReplayCase[] = [];
  const leftOut: LeftOut[] = [];
  for (const entry of entries) {
    const source = `request ${entry.id}`;
    const route = findRoute(entry.operation);
    // A push's platform calls run after its answer, in the background: the journal holds no answers to replay.
    if (!route || !entry.envelope) {
      leftOut.push({ source, reason: 'a push (its platform calls run after its answer and are not recorded)' });
      continue;
    }
    const input = inputOf(entry, route);
    const made = testCaseOf({ route, input, steps: entry.steps, resultName: entry.result, envelope: entry.envelope }, source);
    if ('problem' in made) {
      leftOut.push({ source, reason: made.problem });
      continue;
    }
    const storedEvent = entry.steps.some((step) => step.step === 'stored');
    cases.push({ source, at: entry.at, route, input, answers: made.answers ?? {}, storedEvent });
  }
  return { cases, leftOut };
}

/** The operation cases of a test file (push cases are left out: they answer the ERP, not the platform). */
export function casesFromTestFile(filePath: string): Replayable & { issues: MappingIssue[]; env: Readonly<Record<string, string>> } {
  const read = readTestFile(filePath);
  if (!read.source || !read.file) return { cases: [], leftOut: [], issues: read.issues, env: {} };
  const { source, file } = read;
  const cases: ReplayCase[] = [];
  const leftOut: LeftOut[] = [];
  file.cases.forEach((testCase, index) => {
    const at = source.at(['cases', index]);
    const where = `${displayName(filePath)}:${at.line}:${at.col}`;
    if (testCase.operation === undefined) {
      leftOut.push({ source: where, reason: 'a push case (a push answers the ERP, not the platform)' });
      return;
    }
    const resolved = resolveOperation(testCase.operation);
    if (!resolved) {
      leftOut.push({ source: where, reason: `"${testCase.operation}" is not a contract operation or route` });
      return;
    }
    cases.push({ source: where, route: resolved.route, input: testCase.input ?? resolved.input ?? {}, answers: testCase.answers ?? {}, storedEvent: false });
  });
  return { cases, leftOut, issues: read.issues, env: file.env ?? {} };
}
