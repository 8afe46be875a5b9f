import fs from 'node:fs';
import { isTruncated } from '../journal/journal-entry';
import { readTestFile } from '../testing/test-file';
import type { TraceStep } from '../trace/steps';

/**
 * The fields the ERP really sends, per call: from the answers recorded in the mapping's test file and
 * from the last "Try a route" of each call (what the ERP answered then); the editor completes
 * `calls.<name>.body.` with them. A list's items add their fields under the list's own path
 * (`positions.article`), as JSONata reads a path over a list.
 */
function walk(value: unknown, path: string, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, path, into);
    return;
  }
  if (typeof value !== 'object' || value === null || isTruncated(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const here = path === '' ? key : `${path}.${key}`;
    into.add(here);
    walk(child, here, into);
  }
}

/** The answer bodies of a run's calls, by call name (a fan-out's `call[i]` is the call's). */
export type CallBodies = Readonly<Record<string, readonly unknown[]>>;

export function answeredBodies(steps: readonly TraceStep[]): CallBodies {
  const bodies: Record<string, unknown[]> = {};
  for (const step of steps) if (step.step === 'response' && !step.xml) (bodies[step.call.replace(/\[\d+\]$/, '')] ??= []).push(step.body);
  return bodies;
}

function recordedBodies(testFile: string): CallBodies {
  if (!fs.existsSync(testFile)) return {};
  const bodies: Record<string, unknown[]> = {};
  for (const testCase of readTestFile(testFile).file?.cases ?? []) {
    for (const [call, given] of Object.entries(testCase.answers ?? {})) {
      for (const answer of Array.isArray(given) ? given : [given]) (bodies[call] ??= []).push((answer as { body?: unknown }).body);
    }
  }
  return bodies;
}

/** The fields of the test file's recorded answers and of the last tried answers (`tried`), per call. */
export function answerFields(testFile: string, tried: CallBodies): Record<string, string[]> {
  const found = new Map<string, Set<string>>();
  for (const bodies of [recordedBodies(testFile), tried]) {
    for (const [call, list] of Object.entries(bodies)) {
      const fields = found.get(call) ?? new Set<string>();
      found.set(call, fields);
      for (const body of list) walk(body, '', fields);
    }
  }
  return Object.fromEntries([...found].map(([call, fields]) => [call, [...fields].sort()]));
}
