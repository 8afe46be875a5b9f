import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFile } from './cli-process';

/** A test file indented wrongly is refused at the line to fix, as a mapping is. */
const MAPPING = `version: 1
name: acme
system:
  baseUrl: http://erp.test
operations:
  GetExternalIndexableValueLabel:
    static:
      label: on
`;

describe('adapter-engine test: indentation mistakes in a test file', () => {
  it('names the line of a setting that landed in the wrong block, and of a tab', async () => {
    const dir = tempDir();
    writeFile(dir, 'acme.yaml', MAPPING);
    writeFile(dir, 'acme.test.yaml', 'cases:\n  - name: label\n    operation: GetExternalIndexableValueLabel\n    expect:\n      data: { label: on }\n    result: Succeed\n');
    const misplaced = await runCli(['test', 'acme.test.yaml'], { cwd: dir });
    expect(misplaced.code).toBe(1);
    expect(misplaced.stdout).toContain('acme.test.yaml:6:5  "result" is not a setting of cases[0] but of cases[0].expect: check the indentation of line 6');
    writeFile(dir, 'acme.test.yaml', 'cases:\n  - name: label\n    operation: GetExternalIndexableValueLabel\n    expect:\n\t  result: Succeed\n');
    const tab = await runCli(['test', 'acme.test.yaml'], { cwd: dir });
    expect(tab.code).toBe(1);
    expect(tab.stdout).toMatch(/acme\.test\.yaml:5:\d+ +YAML: Tabs are not allowed as indentation \(indent with spaces\); check the indentation of line 5/);
  });
});
