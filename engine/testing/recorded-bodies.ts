import fs from 'node:fs';
import path from 'node:path';
import type { RecordedAnswer } from './answers';
import { resolveOperation } from './resolve-operation';
import { isTestFileName, readTestFile } from './test-file';

/** One JSON body a 2xx answer of a call had, as a test case recorded it. */
export interface RecordedBody {
  /** The case's operation; undefined for a push case. */
  readonly operationId?: string;
  readonly call: string;
  readonly body: unknown;
  /** The test file it was recorded in, as the mapping's folder names it. */
  readonly testFile: string;
}

/**
 * The ERP's recorded answers to a mapping's calls, from its test files: `<name>.test.yaml` beside it, and
 * any test file of the folder whose `mapping:` names it (where `record` and `requests export --as-test`
 * write), plus `extra` test files named on the command line. Only answers with a JSON body and a 2xx
 * status: they show what a call's answer looks like. A test file that does not read is left out
 * (`adapter-engine test` reports it).
 */
export function recordedBodies(mappingFile: string, extra: readonly string[] = []): RecordedBody[] {
  const mappingPath = path.resolve(mappingFile);
  const dir = path.dirname(mappingPath);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter(isTestFileName).map((name) => path.join(dir, name));
  } catch {
    names = [];
  }
  const found: RecordedBody[] = [];
  for (const testFile of new Set([...names, ...extra.map((file) => path.resolve(file))])) {
    const read = readTestFile(testFile);
    if (!read.file || read.mappingPath === undefined || path.resolve(read.mappingPath) !== mappingPath) continue;
    for (const testCase of read.file.cases) {
      const operationId = testCase.operation === undefined ? undefined : resolveOperation(testCase.operation)?.route.operationId;
      for (const [call, given] of Object.entries(testCase.answers ?? {})) {
        for (const answer of (Array.isArray(given) ? given : [given]) as readonly RecordedAnswer[]) {
          const status = answer.status ?? 200;
          if (answer.body !== undefined && status >= 200 && status < 300) found.push({ operationId, call, body: answer.body, testFile: path.relative(dir, testFile) });
        }
      }
    }
  }
  return found;
}
