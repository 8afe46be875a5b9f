import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE, ROOT, runCli, STACK_LINE, tempDir, writeFile } from './cli-process';

/** A test directory with a copy of the example mapping, so test files can sit beside it. */
function workspace(tests: string): string {
  const dir = tempDir();
  fs.copyFileSync(EXAMPLE, path.join(dir, 'example.yaml'));
  writeFile(dir, 'example.test.yaml', tests);
  return dir;
}

const FAILING = `env: { ERP_URL: http://erp.test/api/v1 }
cases:
  - name: passes
    operation: GetExternalIndexableValueLabel
    expect: { result: Success, data: { label: ERP order id } }
  - name: wrong quantity
    operation: GET /Items/A-100
    answers:
      article: { body: { articleNo: A-100, minStock: 50, baseUnit: PCE } }
    expect:
      result: Succeed
      data: { number: A-100, minimumStockQuantity: 60 }
  - name: call without answer
    operation: GetWorkOrders
    expect: { result: Succeed }
`;

describe('adapter-engine test', () => {
  // This is how `npm test` runs the repository's own mapping tests: every case of mappings/*.test.yaml.
  it('runs every test file in mappings/ when given no arguments, and they all pass', async () => {
    const result = await runCli(['test'], { cwd: ROOT });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('mappings/example.test.yaml  (mapping mappings/example.yaml)');
    expect(result.stdout).toMatch(/^ok {2}\d+ passed, 0 failed {2}\(1 file\)$/m);
    expect(result.stdout).not.toContain('✗');
  });

  it('the example tests cover every operation of the example mapping', async () => {
    const result = await runCli(['test', '--json', 'mappings/example.test.yaml']);
    const report = JSON.parse(result.stdout) as { files: { cases: { operation: string }[] }[] };
    const covered = new Set(report.files[0].cases.map((c) => c.operation));
    const routes = await runCli(['routes', '--json', 'mappings/example.yaml'], { env: { ERP_URL: 'http://erp.test/api/v1' } });
    const mapped = (JSON.parse(routes.stdout) as { routes: { operation: string; status: string }[] }).routes.filter((r) => r.status !== 'unmapped').map((r) => r.operation);
    expect(mapped.filter((operation) => !covered.has(operation))).toEqual([]);
    const pushes = (JSON.parse(routes.stdout) as { pushes: { push: string }[] }).pushes.map((push) => `push/${push.push}`);
    expect(pushes).toHaveLength(3);
    expect(pushes.filter((push) => !covered.has(push))).toEqual([]);
  });

  it('the example mapping passes validate --strict: its tests fill every output field and every expression gives something somewhere', async () => {
    const result = await runCli(['validate', '--strict', 'mappings/example.yaml'], { env: { ERP_URL: 'http://erp.test/api/v1' } });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/mappings\/example\.yaml {2}ok {2}19 of 19 routes mapped/);
  });

  it('prints a pass/fail line per case, a readable diff, and exits 1 on failure', async () => {
    const dir = workspace(FAILING);
    const result = await runCli(['test', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✓ passes');
    expect(result.stdout).toMatch(/✗ wrong quantity {2}\S+example\.test\.yaml:6:5/);
    expect(result.stdout).toContain('data.minimumStockQuantity\n        - expected  60\n        + actual    50');
    expect(result.stdout).toContain('the operation called orders but the case gives no answer for it');
    expect(result.stdout).toMatch(/^FAILED {2}1 passed, 2 failed {2}\(1 file\)$/m);
  });

  it('--json reports every case with its mismatches', async () => {
    const dir = workspace(FAILING);
    const result = await runCli(['test', '--json', path.join(dir, 'example.test.yaml')]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; passed: number; failed: number; files: { cases: { name: string; passed: boolean; mismatches: { path: string }[] }[] }[] };
    expect(report).toMatchObject({ ok: false, passed: 1, failed: 2 });
    expect(report.files[0].cases[1].mismatches.map((m) => m.path)).toEqual(['data.minimumStockQuantity']);
  });

  it('reports problems of the test file itself at line:col, without a stack trace (exit 1)', async () => {
    const dir = workspace(`env: { ERP_URL: http://erp.test/api/v1 }
cases:
  - name: typo in the operation
    operation: GetItm
    expect: { result: Succeed }
  - name: a result the route does not have
    operation: GetItem
    input: { number: A-1 }
    answers:
      artcle: { status: 200 }
    expect: { result: Success }
`);
    const result = await runCli(['test', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/example\.test\.yaml:4:16 {2}"GetItm" is not a contract operation or route/);
    expect(result.stdout).toMatch(/example\.test\.yaml:10:7 {2}"artcle" is not a call of GetItem; it makes: article/);
    expect(result.stdout).toMatch(/example\.test\.yaml:11:23 {2}"Success" is not a result of GET \/Items\/\{number\}/);
    // Each such case fails alone, with its problems under it; the file itself runs.
    expect(result.stdout).toContain('FAILED  0 passed, 2 failed  (1 file)');
    expect(result.stdout + result.stderr).not.toMatch(STACK_LINE);
  });

  it('reports a broken mapping under test with file:line:col (exit 1)', async () => {
    const dir = workspace('cases:\n  - { name: any, operation: GetWorkOrders, expect: { result: Succeed } }\n');
    const mapping = path.join(dir, 'example.yaml');
    fs.writeFileSync(mapping, fs.readFileSync(mapping, 'utf8').replace('baseUrl: ${ERP_URL}', 'baseUrl: ${ERP_URL:=x}'));
    const result = await runCli(['test', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/example\.yaml:\d+:\d+ {2}"\$\{ERP_URL:=x\}" is not a valid variable reference/);
    expect(result.stdout).toContain('1 file(s) could not run');
  });

  it('runs without the mapping\'s variables, and says nothing of them while the cases pass', async () => {
    const dir = workspace('cases:\n  - { name: label, operation: GetExternalIndexableValueLabel, expect: { result: Success, data: { label: ERP order id } } }\n');
    const result = await runCli(['test', dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('is not set');
    expect(result.stdout).toContain('1 passed, 0 failed');
  });

  it('a directory without test files is a usage error (exit 2)', async () => {
    const result = await runCli(['test', tempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no test files \(\*\.test\.yaml\)/);
  });

  it('without arguments outside a project it says where it looked (exit 2)', async () => {
    const result = await runCli(['test'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no mappings/ directory here');
  });
});

describe('adapter-engine test with an OAuth2 mapping', () => {
  it('stands in for the token endpoint, so recorded answers need only the ERP calls', async () => {
    const dir = tempDir();
    writeFile(dir, 'oauth.yaml', `version: 1
name: oauth
system:
  baseUrl: https://erp.test/api
  auth: { type: oauth2ClientCredentials, tokenUrl: "https://login.test/token", clientId: wms, clientSecret: "\${SECRET}" }
operations:
  GetItem:
    calls: [{ name: article, method: GET, path: "/articles/{input.number}" }]
    output: '{ "number": calls.article.body.no }'
`);
    writeFile(dir, 'oauth.test.yaml', `env: { SECRET: s3cret }
cases:
  - name: item through an OAuth2-protected ERP
    operation: GET /Items/A-1
    answers:
      article: { body: { no: A-1 } }
    expect:
      result: Succeed
      data: { number: A-1 }
`);
    const result = await runCli(['test', path.join(dir, 'oauth.test.yaml')]);
    expect(result.stdout).toMatch(/1 passed, 0 failed/);
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('s3cret');
  });
});

describe('adapter-engine test of push endpoints', () => {
  it('runs push cases: the status the ERP gets, the problems, what reaches the platform, the delivery; mistakes at file:line:col', async () => {
    const env = 'env: { ERP_URL: http://erp.test/api/v1, PLATFORM_URL: http://platform.test/integration, ERP_PUSH_SECRET: not-checked }\n';
    const failing = workspace(`${env}cases:
  - name: stock arrives
    push: StockChange
    input: { changeNo: 1, article: A-300, available: 7, unit: L }
    answers: { stock: { status: 201 } }
    expect: { status: 202, delivery: delivered, requests: { stock: { body: { availableAmount: 8 } } } }
  - name: wrongly refused
    push: StockChange
    input: { changeNo: 1, article: A-300, available: -1 }
    expect: { status: 202 }
`);
    const result = await runCli(['test', failing]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('requests.stock.body.availableAmount\n        - expected  8\n        + actual    7');
    expect(result.stdout).toMatch(/✗ wrongly refused {2}\S+example\.test\.yaml:8:5/);
    expect(result.stdout).toContain('- expected  202\n        + actual    "400 (Invalid)"');

    const wrong = workspace(`${env}cases:
  - name: unknown push
    push: NoSuchPush
    input: {}
    expect: { status: 202 }
  - name: a result is not a push's
    push: StockChange
    input: {}
    answers: { platform: { status: 200 } }
    expect: { result: Succeed }
`);
    const refused = await runCli(['test', wrong]);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/example\.test\.yaml:4:11 {2}"NoSuchPush" is not a push endpoint of example; it has NewOrder, CancelOrderLine, StockChange/);
    expect(refused.stdout + refused.stderr).toMatch(/example\.test\.yaml:11:23 {2}expect\.result is for contract operations/);
    expect(refused.stdout + refused.stderr).toMatch(/example\.test\.yaml:11:13 {2}a push case needs expect\.status/);
    expect(refused.stdout + refused.stderr).toMatch(/example\.test\.yaml:10:16 {2}"platform" is not a call of the push StockChange; it makes: stock/);
  });
});
