import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFile } from './cli-process';

/**
 * Issue 39: mistakes that loaded and then answered emptier data (or failed every request) are caught by
 * `validate`, at the line and column of the mistake, with the name meant. The built CLI, as integrators run it.
 */
const HEAD = `version: 1
name: acme
system:
  baseUrl: http://erp.test/api
operations:
`;

async function validate(mapping: string, files: Record<string, string> = {}, args: readonly string[] = []) {
  const dir = tempDir();
  writeFile(dir, 'acme.yaml', HEAD + mapping);
  for (const [name, text] of Object.entries(files)) writeFile(dir, name, text);
  const result = await runCli(['validate', ...args, `${dir}/acme.yaml`]);
  return { ...result, stdout: result.stdout.replaceAll(`${dir}/`, '') };
}

describe('validate catches a misspelt input field', () => {
  it('in a path placeholder and in an expression, at the field, with the field meant', async () => {
    const result = await validate(`  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Cod}
        query: { store: "{input.StorageNam}" }
    output: 'calls.order.body ? { "number": input.Code, "dueDate": "2026-01-01", "requests": [] } : null'
`);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('acme.yaml:10:30  input.Cod: the input of GetWorkOrderByCode (GET /WorkOrders/Code) has no field "Cod"; did you mean input.Code? (its fields: Code, StorageName)');
    expect(result.stdout).toContain('acme.yaml:11:33  input.StorageNam: the input of GetWorkOrderByCode (GET /WorkOrders/Code) has no field "StorageNam"; did you mean input.StorageName?');
    expect(result.stdout).toMatch(/acme\.yaml {2}2 errors/);
  });

  it('in a body field of the platform request, nested fields too', async () => {
    const result = await validate(`  ConfirmWorkOrderStep:
    calls:
      - name: confirmation
        method: POST
        path: /pick-confirmations
        body: '{ "docNo": input.workOrderNumbr, "id": input.updateWorkOrderRequest.idd }'
    output: '{ "updateWorkOrderRequest": null }'
`);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('acme.yaml:11:33  input.workOrderNumbr: the input of ConfirmWorkOrderStep (POST /WorkOrderProcessing/ConfirmWorkOrderStep) has no field "workOrderNumbr"; did you mean input.workOrderNumber?');
    expect(result.stdout).toContain('acme.yaml:11:84  input.updateWorkOrderRequest.idd: input.updateWorkOrderRequest has no field "idd"; did you mean input.updateWorkOrderRequest.id?');
  });

  it('spelt as the contract spells them, the mapping is ok', async () => {
    const result = await validate(`  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
        query: { store: "{input.StorageName}" }
    output: 'calls.order.body ? { "number": input.Code, "dueDate": "2026-01-01", "requests": [] } : null'
`);
    expect(result.stdout).toMatch(/acme\.yaml {2}ok/);
    expect(result.code).toBe(0);
  });
});

describe('validate catches an output without a field the contract requires', () => {
  it('an item without its number', async () => {
    const result = await validate(`  GetItem:
    calls:
      - name: item
        method: GET
        path: /articles/{input.number}
    output: '{ "name": calls.item.body.title }'
`);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('acme.yaml:11:14  the data of GetItem is built here without "number", which the contract requires: every answer would fail the contract\'s check, after the ERP was asked. Add "number" to the object');
  });

  it('a step confirmation whose update lacks id, in both branches, is caught before the ERP takes a write', async () => {
    const result = await validate(`  ConfirmWorkOrderStep:
    calls:
      - name: confirmation
        method: POST
        path: /pick-confirmations
        body: '{ "docNo": input.workOrderNumber }'
    output: |
      calls.confirmation.body.correction
        ? { "updateWorkOrderRequest": { "description": "short" } }
        : { "updateWorkOrderRequest": { "dueDate": "2026-01-01T00:00:00Z" } }
`);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('acme.yaml:14:39  the data of ConfirmWorkOrderStep.updateWorkOrderRequest is built here without "id", which the contract requires (no branch of the expression gives it)');
    expect(result.stdout).toMatch(/acme\.yaml {2}1 error\n/);
  });

  it('says nothing when a branch gives the field, or when it cannot see what the expression builds', async () => {
    const result = await validate(`  ConfirmWorkOrderStep:
    calls:
      - name: confirmation
        method: POST
        path: /pick-confirmations
    output: |
      calls.confirmation.body.correction
        ? { "updateWorkOrderRequest": { "id": input.updateWorkOrderRequest.id, "description": "short" } }
        : { "updateWorkOrderRequest": null }
  GetItem:
    calls:
      - name: item
        method: GET
        path: /articles/{input.number}
    output: 'calls.item.body'
`);
    expect(result.stdout).toMatch(/acme\.yaml {2}ok/);
    expect(result.code).toBe(0);
  });
});

describe('validate warns about a misspelt ERP field that the recorded answers show', () => {
  const MAPPING = (field: string) => `  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    output: |
      {
        "number": calls.order.body.no,
        "dueDate": "2026-01-01T00:00:00Z",
        "description": calls.order.body.${field},
        "requests": calls.order.body.lines.{ "itemNumber": article, "requestedAmount": qty }
      }
`;
  const TESTS = `cases:
  - name: an order
    operation: GetWorkOrderByCode
    input: { Code: SO-1 }
    answers:
      order: { body: { no: SO-1, customer: { name: Ann }, lines: [{ article: A-1, qty: 2 }] } }
    expect: { result: Succeed }
`;

  it('at the field, naming the recorded field of the closest spelling', async () => {
    const result = await validate(MAPPING('custmer.name'), { 'acme.test.yaml': TESTS });
    expect(result.stdout).toContain('acme.yaml:15:41  warning: calls.order.body.custmer: no answer of the call "order" recorded in acme.test.yaml has a field "custmer" here, so it gives nothing; did you mean calls.order.body.customer?');
    expect(result.stdout).toMatch(/acme\.yaml {2}ok/);
    expect(result.code).toBe(0);
  });

  it('reads through lists and nested objects, and says nothing of fields the recordings have or of no near miss', async () => {
    const nested = await validate(MAPPING('customer.nme'), { 'acme.test.yaml': TESTS });
    expect(nested.stdout).toContain('warning: calls.order.body.customer.nme: no answer of the call "order" recorded in acme.test.yaml has a field "nme" here, so it gives nothing; did you mean calls.order.body.customer.name?');
    const right = await validate(MAPPING('customer.name'), { 'acme.test.yaml': TESTS });
    expect(right.stdout).not.toContain('ANSWER');
    expect(right.stdout).not.toContain('gives nothing');
    const untested = await validate(MAPPING('custmer.name'));
    expect(untested.stdout).not.toContain('gives nothing');
  });
});

describe('validate --strict and a literal output', () => {
  it('does not call a literal null output "never exercised": it is exercised by being there', async () => {
    const result = await validate(`  ConfirmWorkOrderStep:
    calls:
      - name: confirmation
        method: POST
        path: /pick-confirmations
        body: '{ "docNo": input.workOrderNumber }'
    output: '{ "updateWorkOrderRequest": null }'
`, {
      'acme.test.yaml': `cases:
  - name: a confirmation
    operation: ConfirmWorkOrderStep
    input: { workOrderNumber: SO-1 }
    answers:
      confirmation: { status: 201, body: {} }
    expect: { result: Success, data: { updateWorkOrderRequest: null } }
`,
    }, ['--strict']);
    expect(result.stdout).not.toContain('"updateWorkOrderRequest" is written here');
    expect(result.stdout).toMatch(/acme\.yaml {2}ok/);
    expect(result.code).toBe(0);
  });
});
