import fs from 'node:fs';
import { readTestFile } from '../testing/test-file';

/**
 * The fields the ERP really sends, per call, from the answers recorded in the mapping's test file: the
 * editor completes `calls.<name>.body.` with them. A list's items add their fields under the list's own
 * path (`positions.article`), as JSONata reads a path over a list.
 */
function walk(value: unknown, path: string, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, path, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const here = path === '' ? key : `${path}.${key}`;
    into.add(here);
    walk(child, here, into);
  }
}

export function answerFields(testFile: string): Record<string, string[]> {
  if (!fs.existsSync(testFile)) return {};
  const found = new Map<string, Set<string>>();
  for (const testCase of readTestFile(testFile).file?.cases ?? []) {
    for (const [call, given] of Object.entries(testCase.answers ?? {})) {
      const fields = found.get(call) ?? new Set<string>();
      found.set(call, fields);
      for (const answer of Array.isArray(given) ? given : [given]) walk((answer as { body?: unknown }).body, '', fields);
    }
  }
  return Object.fromEntries([...found].map(([call, fields]) => [call, [...fields].sort()]));
}
