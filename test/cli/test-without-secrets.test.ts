import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFile } from './cli-process';

/**
 * Issue 39: `test` and `diff` run on recorded answers, which need no secret, but a variable read through
 * $secret() failed every case that reached it, and each unset variable was a warning for every file and
 * every mapping version. The cases run without them; the variables are named once, when a run fails.
 */
const MAPPING = (field: string) => `version: 1
name: acme
system:
  baseUrl: \${ERP_URL}
  headers:
    X-Tenant: acme
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
        headers:
          Authorization: 'Bearer {$secret("ERP_KEY")}'
    output: '{ "number": calls.article.body.no, "name": calls.article.body.${field} }'
`;

const CASE = (name: string, expected: string) => `  - name: ${name}
    operation: GetItem
    input: { number: A-1 }
    answers:
      article: { body: { no: A-1, text: Bolt } }
    expect: { result: Succeed, data: { number: A-1, name: ${expected} } }
`;

function workspace(tests: string, field = 'text'): string {
  const dir = tempDir();
  writeFile(dir, 'acme.yaml', MAPPING(field));
  writeFile(dir, 'acme.test.yaml', `cases:\n${tests}`);
  return dir;
}

describe('test without the ERP\'s secrets', () => {
  it('runs cases that read $secret() without its variable, and says nothing of unset variables when they pass', async () => {
    const dir = workspace(CASE('one', 'Bolt') + CASE('two', 'Bolt'));
    const result = await runCli(['test', `${dir}/acme.test.yaml`]);
    expect(result.stdout).toContain('ok  2 passed, 0 failed');
    expect(result.stdout + result.stderr).not.toContain('is not set');
    expect(result.code).toBe(0);
  });

  it('names the unset variables once, after a run that failed', async () => {
    const dir = workspace(CASE('one', 'Nut') + CASE('two', 'Nut'));
    const result = await runCli(['test', `${dir}/acme.test.yaml`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FAILED  0 passed, 2 failed');
    expect(result.stdout.match(/ERP_URL/g)).toHaveLength(1);
    expect(result.stdout).toContain('note: ERP_URL, ERP_KEY are not set; the run used their ${NAME} text instead (recorded answers need no ERP address or secret)');
  });
});

describe('diff without the ERP\'s secrets', () => {
  it('says nothing of unset variables when the answers are the same, and names them once when they differ', async () => {
    const dir = workspace(CASE('one', 'Bolt'));
    writeFile(dir, 'same.yaml', MAPPING('text'));
    writeFile(dir, 'changed.yaml', MAPPING('no'));
    const same = await runCli(['diff', `${dir}/acme.yaml`, `${dir}/same.yaml`]);
    expect(same.code).toBe(0);
    expect(same.stdout + same.stderr).not.toContain('not set');
    const changed = await runCli(['diff', `${dir}/acme.yaml`, `${dir}/changed.yaml`]);
    expect(changed.code).toBe(1);
    expect((changed.stdout + changed.stderr).match(/ERP_KEY/g)).toHaveLength(1);
    expect(changed.stdout).toContain('note: ERP_URL, ERP_KEY are not set');
  });
});
