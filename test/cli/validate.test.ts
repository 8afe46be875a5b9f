import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXAMPLE, runCli, STACK_LINE, tempDir, writeFile } from './cli-process';

const ERP = { ERP_URL: 'http://erp.test/api/v1' };

const TWO_ERRORS = `version: 1
name: broken
system:
  baseUrl: http://erp.test
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
    outcomes:
      - when: response.status = 404
        result: ItemMissing
    output: calls.article.body.(
`;

describe('adapter-engine validate', () => {
  it('accepts the example mapping: exit 0 and a one-line summary', async () => {
    const result = await runCli(['validate', 'mappings/example.yaml'], { env: ERP });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('mappings/example.yaml  ok  19 of 19 routes mapped, 3 push endpoints (POST /push/NewOrder, /push/CancelOrderLine, /push/StockChange)\n');
  });

  it('checks a mapping whose variables are unset: each is one warning at its line and column, exit 0', async () => {
    const result = await runCli(['validate', 'mappings/example.yaml']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^mappings\/example\.yaml:\d+:\d+ {2}warning: environment variable ERP_URL is not set; checked without it/m);
    expect(result.stdout).toContain('mappings/example.yaml  ok  19 of 19 routes mapped, 3 push endpoints (POST /push/NewOrder, /push/CancelOrderLine, /push/StockChange), 3 warnings');
    expect(result.stdout + result.stderr).not.toMatch(STACK_LINE);
  });

  it('says, as an info line at its place, which expression runs on the interpreter and why; the file stays ok', async () => {
    const mapping = `version: 1
name: interpreted
system:
  baseUrl: http://erp.test
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
    output: |
      {
        "number": calls.article.body.lines[qty > 0].no,
        "formulas": $map(calls.article.body.formulas, $eval)
      }
`;
    const file = writeFile(tempDir(), 'interpreted.yaml', mapping);
    const result = await runCli(['validate', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/interpreted\.yaml:12:7 {2}info: this expression runs on JSONata's interpreter, not compiled: outside the fast path's subset: \$eval used as a value \(not called by its name\)\n/);
    // The filter is compiled: one info line, for the one expression, and no warning counted.
    expect(result.stdout.match(/info:/g)).toHaveLength(1);
    expect(result.stdout).toMatch(/interpreted\.yaml {2}ok {2}1 of \d+ routes mapped, \d+ warnings\n/);
  });

  it('--env sets a variable for the mapping', async () => {
    const result = await runCli(['validate', '--env', 'ERP_URL=http://erp.test/api/v1', 'mappings/example.yaml']);
    expect(result.code).toBe(0);
  });

  it('prints every error, not only the first, as file:line:col  message', async () => {
    const file = writeFile(tempDir(), 'broken.yaml', TWO_ERRORS);
    const result = await runCli(['validate', file]);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n').filter((line) => /:\d+:\d+ {2}/.test(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/:13:17 {2}"ItemMissing" is not a result of GET \/Items\/\{number\}/);
    expect(lines[1]).toMatch(/:14:\d+ {2}JSONata expression does not compile/);
    expect(result.stdout).toContain('2 errors');
    expect(result.stdout + result.stderr).not.toMatch(STACK_LINE);
  });

  it('reports an unknown setting with a hint instead of crashing', async () => {
    const file = writeFile(tempDir(), 'typo.yaml', fs.readFileSync(EXAMPLE, 'utf8').replace('timeoutMs: 5000', 'timeoutMS: 5000'));
    const result = await runCli(['validate', file], { env: ERP });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/typo\.yaml:\d+:\d+ {2}unknown setting "timeoutMS" in system; did you mean "timeoutMs"\?/);
  });

  it('warns about unmapped contract routes but still exits 0', async () => {
    const file = writeFile(tempDir(), 'small.yaml', 'version: 1\nname: small\nsystem:\n  baseUrl: http://erp.test\noperations:\n  GetExternalIndexableValueLabel:\n    static: { label: Order }\n');
    const result = await runCli(['validate', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/small\.yaml {2}warning: GET \/WorkOrders \(GetWorkOrders\) is not mapped and answers AdapterNotDefined/);
    expect(result.stdout.match(/warning:/g)).toHaveLength(18);
    expect(result.stdout).toContain('ok  1 of 19 routes mapped, 18 warnings');
  });

  it('--json prints one document with every issue', async () => {
    const file = writeFile(tempDir(), 'broken.yaml', TWO_ERRORS);
    const result = await runCli(['validate', '--json', file, 'mappings/example.yaml'], { env: ERP });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; files: { ok: boolean; issues: { line: number; code: string }[] }[] };
    expect(report.ok).toBe(false);
    expect(report.files.map((f) => f.ok)).toEqual([false, true]);
    expect(report.files[0].issues.map((i) => i.code)).toEqual(['UNKNOWN_RESULT', 'EXPRESSION_SYNTAX']);
  });

  it('a file that does not exist is a usage error (exit 2)', async () => {
    const result = await runCli(['validate', 'mappings/nope.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mappings/nope.yaml  file not found');
  });
});
