import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFile } from './cli-process';

/**
 * `adapter-engine test` of a case whose output breaks the contract: each problem on a line of its own,
 * at the mapping line of the output's field that made the value, and one problem per mistake (no
 * anyOf noise for a nullable enum).
 */
const MAPPING = `version: 1
name: acme
system:
  baseUrl: http://erp.test
operations:
  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    output: |
      {
        "number": calls.order.body.no,
        "dueDate": "2026-12-01T00:00:00Z",
        "requests": [calls.order.body.lines.{
          "itemNumber": sku,
          "requestedAmount": qty,
          "unitOfMeasure": unit
        }]
      }
`;

const TESTS = `cases:
  - name: the ERP's answer does not fit the contract
    operation: GetWorkOrderByCode
    input: { Code: SO-1 }
    answers:
      order: { body: { no: 4711, lines: [{ sku: A-1, qty: 2, unit: 0 }, { sku: A-2, qty: 1.5, unit: box }] } }
    expect:
      result: Succeed
`;

describe('adapter-engine test: a contract break names the mapping line', () => {
  it('lists each problem once, at the line of the output field that made it', async () => {
    const dir = tempDir();
    writeFile(dir, 'acme.yaml', MAPPING);
    writeFile(dir, 'acme.test.yaml', TESTS);
    const result = await runCli(['test', 'acme.test.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    const start = lines.findIndex((line) => line.includes('engine: OUTPUT_INVALID: the output does not match the contract:'));
    expect(start, result.stdout).toBeGreaterThan(0);
    const problems = lines.slice(start + 1).filter((line) => /^ {8}\S/.test(line)).map((line) => line.trim());
    expect(problems).toEqual([
      'acme.yaml:13:9  data/number must be string',
      'acme.yaml:17:11  data/requests/1/requestedAmount must be integer',
      'acme.yaml:18:11  data/requests/1/unitOfMeasure must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13',
    ]);
  });
});
