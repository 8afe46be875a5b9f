import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFile } from './cli-process';

/**
 * Issue 17: a misspelt ERP field passes validate and answers valid but emptier data. The mapping's tests
 * show it (adapter-engine test reports what no case exercised) and validate --strict fails on it.
 */
const MAPPING = (descriptionField: string, reasonField: string) => `version: 1
name: sap
system:
  baseUrl: http://erp.test/sap/opu/odata/sap/API_PRODUCT_SRV
operations:
  GetItem:
    calls:
      - name: product
        method: GET
        path: /A_Product('{input.number}')
    outcomes:
      - when: response.status = 404
        result: ItemDoesNotExist
        message: response.body.error.${reasonField}
    output: |
      {
        "number": calls.product.body.d.Product,
        "description": calls.product.body.d.${descriptionField}
      }
`;

const TESTS = `cases:
  - name: a product
    operation: GET /Items/P-1
    answers:
      product: { body: { d: { Product: P-1, ProductDescription: Bolt } } }
    expect: { result: Succeed, data: { number: P-1 } }
  - name: an unknown product
    operation: GET /Items/P-9
    answers:
      product: { status: 404, body: { error: { message: { value: no such product } } } }
    expect: { result: ItemDoesNotExist }
`;

function workspace(descriptionField: string, reasonField: string, testName = 'sap.test.yaml'): string {
  const dir = tempDir();
  writeFile(dir, 'sap.yaml', MAPPING(descriptionField, reasonField));
  writeFile(dir, testName, TESTS);
  return dir;
}

describe('what the tests never exercised', () => {
  it('adapter-engine test passes but reports the misspelt field and the expression that always gave nothing, at file:line:col', async () => {
    const dir = workspace('ProductDescr', 'mesage.value');
    const result = await runCli(['test', `${dir}/sap.test.yaml`]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('not exercised');
    expect(result.stdout).toMatch(/sap\.yaml:18:9 {2}warning: GetItem: the output field "description" is written here but no test case's answer has it/);
    expect(result.stdout).toMatch(/sap\.yaml:14:18 {2}warning: GetItem: the expression "response\.body\.error\.mesage\.value" gave nothing in every test case that ran it \(1 time\)/);
    expect(result.stdout).not.toContain('"number"');
  });

  it('validate --strict turns them into errors and exits 1; the mapping alone validates', async () => {
    const dir = workspace('ProductDescr', 'mesage.value');
    expect((await runCli(['validate', `${dir}/sap.yaml`])).code).toBe(0);
    const strict = await runCli(['validate', '--strict', `${dir}/sap.yaml`]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/sap\.yaml:18:9 {2}GetItem: the output field "description"/);
    expect(strict.stdout).toMatch(/sap\.yaml:14:18 {2}GetItem: the expression/);
    expect(strict.stdout).toMatch(/sap\.yaml {2}2 errors/);
  });

  it('spelt right, validate --strict passes', async () => {
    const dir = workspace('ProductDescription', 'message.value');
    const result = await runCli(['validate', '--strict', `${dir}/sap.yaml`]);
    expect(result.stdout).toMatch(/sap\.yaml {2}ok/);
    expect(result.code).toBe(0);
  });

  it('--tests names another test file; without any, --strict says what is missing', async () => {
    const dir = workspace('ProductDescription', 'message.value', 'ci-cases.test.yaml');
    const missing = await runCli(['validate', '--strict', `${dir}/sap.yaml`]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('sap.test.yaml does not exist; write it or name the test file with --tests');
    writeFile(dir, 'ci-cases.test.yaml', `mapping: sap.yaml\n${TESTS}`);
    const named = await runCli(['validate', '--strict', '--tests', `${dir}/ci-cases.test.yaml`, `${dir}/sap.yaml`]);
    expect(named.code).toBe(0);
  });

  it('a failing case is an error of --strict at the case', async () => {
    const dir = workspace('ProductDescription', 'message.value');
    writeFile(dir, 'sap.test.yaml', TESTS.replace('data: { number: P-1 }', 'data: { number: P-2 }'));
    const result = await runCli(['validate', '--strict', `${dir}/sap.yaml`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/sap\.test\.yaml:2:5 {2}the case "a product" fails \(data\.number\)/);
  });
});
