import { findRoute } from '../contract/routes';
import { isTruncated, type JournalEntry } from '../journal/journal-entry';
import { readTestFile } from './test-file';
import { inputOf, testCaseOf } from './recorded-case';
import { resolveOperation } from './resolve-operation';
import type { ReplayCase } from './replay';
import type { PushReplayCase } from './replay-push';
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
  /** Requests of contract routes and pushes, in the order they were recorded. */
  readonly cases: (ReplayCase | PushReplayCase)[];
  readonly leftOut: LeftOut[];
}

/** A journaled push (operation push/<name>): replayed from its pushed JSON, which the journal must hold whole. */
function pushOf(entry: JournalEntry, source: string): PushReplayCase | LeftOut {
  const push = entry.operation.slice('push/'.length);
  const body = entry.request.body;
  if (body === undefined) return { source, reason: 'a push whose body was not read (not JSON, or not readable): nothing to replay' };
  if (isTruncated(body)) return { source, reason: 'a push whose body the journal kept only in part (larger than it keeps): it cannot be replayed' };
  return { source, at: entry.at, push, input: body, answers: {} };
}

export function casesFromEntries(entries: readonly JournalEntry[]): Replayable {
  const cases: Replayable['cases'] = [];
  const leftOut: LeftOut[] = [];
  for (const entry of entries) {
    const source = `request ${entry.id}`;
    if (entry.mode === 'push') {
      const made = pushOf(entry, source);
      if ('reason' in made) leftOut.push(made);
      else cases.push(made);
      continue;
    }
    const route = findRoute(entry.operation);
    if (!route || !entry.envelope) {
      leftOut.push({ source, reason: route ? 'a request the journal kept no answer of' : `"${entry.operation}" is not a contract operation or a push` });
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

/** The cases of a test file: operation cases, and push cases with the platform's answers they give. */
export function casesFromTestFile(filePath: string): Replayable & { issues: MappingIssue[]; env: Readonly<Record<string, string>> } {
  const read = readTestFile(filePath);
  if (!read.source || !read.file) return { cases: [], leftOut: [], issues: read.issues, env: {} };
  const { source, file } = read;
  const cases: Replayable['cases'] = [];
  const leftOut: LeftOut[] = [];
  file.cases.forEach((testCase, index) => {
    const at = source.at(['cases', index]);
    const where = `${displayName(filePath)}:${at.line}:${at.col}`;
    if (testCase.push !== undefined) {
      cases.push({ source: where, push: testCase.push, input: testCase.input, answers: testCase.answers ?? {} });
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
