import fs from 'node:fs';
import path from 'node:path';
import type { MappingIssue } from '../errors';
import { runTestFile } from '../testing/test-runner';
import { displayName } from '../mapping/yaml-file';

/**
 * `validate --strict`: the mapping's test file is run too, and what `adapter-engine test` reports as not
 * exercised (expressions that always gave nothing, output fields never filled) becomes errors, like a
 * failing case; for CI, where a misspelt ERP field must stop the change rather than answer emptier data.
 */

/** `<dir>/<name>.test.yaml` (or .yml) beside `<dir>/<name>.yaml`. */
function testFileBeside(mappingPath: string): string | undefined {
  const { dir, name } = path.parse(mappingPath);
  return ['.test.yaml', '.test.yml'].map((ending) => path.join(dir, `${name}${ending}`)).find((candidate) => fs.existsSync(candidate));
}

function position(at: string): { line: number; col: number } {
  const match = /:(\d+):(\d+)$/.exec(at);
  return { line: match ? Number(match[1]) : 0, col: match ? Number(match[2]) : 0 };
}

export async function strictIssues(mappingPath: string, testsPath: string | undefined, env: Readonly<Record<string, string>>): Promise<MappingIssue[]> {
  const file = displayName(mappingPath);
  const tests = testsPath ?? testFileBeside(mappingPath);
  if (!tests || !fs.existsSync(tests)) {
    const expected = testsPath ?? `${path.join(path.dirname(file), path.parse(mappingPath).name)}.test.yaml`;
    return [{ file, line: 0, col: 0, path: '', severity: 'error', code: 'TEST_FILE_MISSING', message: `--strict runs the mapping's tests, but ${expected} does not exist; write it or name the test file with --tests` }];
  }
  const result = await runTestFile(tests, env);
  if (result.mapping !== undefined && path.resolve(result.mapping) !== path.resolve(mappingPath)) {
    return [{ file, line: 0, col: 0, path: '', severity: 'error', code: 'TEST_FILE_MISSING', message: `${displayName(tests)} tests ${result.mapping}, not ${file}` }];
  }
  const failed: MappingIssue[] = result.cases.filter((testCase) => !testCase.passed).map((testCase) => ({
    file: result.file, ...position(testCase.at), path: '', severity: 'error', code: 'TEST_CASE_FAILED',
    message: testCase.problems?.length
      ? `the case "${testCase.name}" cannot run: ${testCase.problems.map((problem) => `${problem.message} (${problem.file}:${problem.line}:${problem.col})`).join('; ')}`
      : `the case "${testCase.name}" fails (${testCase.mismatches.map((mismatch) => mismatch.path).join(', ') || 'see adapter-engine test'})`,
  }));
  return [...result.issues, ...failed, ...result.coverage.map((finding): MappingIssue => ({ ...finding, severity: 'error' }))];
}
