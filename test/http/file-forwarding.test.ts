/**
 * The alternative to the file: block: a file route that forwards the upload to the ERP and maps the
 * ERP's answer (README, "Forwarding a file to the ERP"). The example mapping parses files itself, so
 * this test swaps its two file operations for forwarding ones and keeps everything else.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { startErp, type RunningErp } from '../../examples/erp';
import { EXAMPLE_MAPPING, mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { exampleEnv } from '../../examples/example-env';
import { expectResult, expectSuccess } from '../support/envelope';

const FORWARDING = parseDocument(`
ParseWorkOrderFile:
  calls:
    - name: parsed
      method: POST
      path: /files/sales-orders
      body: |
        { "format": input.fileType = $enumValue('FileType', 'CSV') ? 'csv' : 'json', "content": input.fileContent }
  outcomes:
    - when: response.status = 422
      result: InvalidInput
      message: response.body.error.message
    - when: response.status = 415
      result: FileNotSupported
  output: calls.parsed.body.salesOrders.$workOrder($)
ParseItemFile:
  calls:
    - name: parsed
      method: POST
      path: /files/articles
      body: |
        { "format": input.fileType = $enumValue('FileType', 'CSV') ? 'csv' : 'json', "content": input.fileContent }
  outcomes:
    - when: response.status = 422
      result: InvalidInput
      message: response.body.error.message
    - when: response.status = 415
      result: FileNotSupported
  output: calls.parsed.body.articles.$item($)
`).toJS() as Record<string, unknown>;

function forwardingMapping(erpUrl: string) {
  const doc = parseDocument(fs.readFileSync(EXAMPLE_MAPPING, 'utf8'));
  for (const [operation, definition] of Object.entries(FORWARDING)) doc.setIn(['operations', operation], doc.createNode(definition));
  return mappingFromText(doc.toString(), exampleEnv(erpUrl));
}

let erp: RunningErp;
let engine: RunningEngine;

beforeAll(async () => {
  erp = await startErp({ port: 0 });
  engine = await startEngine(forwardingMapping(erp.url));
});
afterAll(async () => {
  await engine.close();
  await erp.close();
});

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('POST /WorkOrders/File', () => {
  it('forwards a JSON file (fileType 0) to the ERP and maps the orders it parsed', async () => {
    const file = [{ docNo: 'SO-3100', deliveryDate: '2026-12-20', headerText: 'From file', positions: [{ article: { no: 'A-300' }, quantity: 2, unit: 'L' }] }];
    const reply = await engine.post('/WorkOrders/File', { fileContent: base64(JSON.stringify(file)), fileType: 0 });
    expectSuccess(reply, 'ParseWorkOrderFile', 1);
    expect(reply.body.data).toEqual([
      { number: 'SO-3100', description: 'From file', dueDate: '2026-12-20T00:00:00Z', requests: [{ itemNumber: 'A-300', requestedAmount: 2, unitOfMeasure: 7, requestType: 1, order: 10 }] },
    ]);
  });

  it('forwards a CSV file (fileType 1) and groups its rows into orders', async () => {
    const csv = 'docNo;deliveryDate;article;quantity;unit\nSO-3001;2026-12-15;A-100;12;PCE\nSO-3001;2026-12-15;A-400;25;KG\n';
    const reply = await engine.post('/WorkOrders/File', { fileContent: base64(csv), fileType: 1 });
    expectSuccess(reply, 'ParseWorkOrderFile', 1);
    expect(reply.body.data).toEqual([
      {
        number: 'SO-3001', dueDate: '2026-12-15T00:00:00Z',
        requests: [
          { itemNumber: 'A-100', requestedAmount: 12, unitOfMeasure: 0, requestType: 1, order: 10 },
          { itemNumber: 'A-400', requestedAmount: 25, unitOfMeasure: 4, requestType: 1, order: 20 },
        ],
      },
    ]);
  });

  it('answers InvalidInput (2) with the ERP parse error for a broken file', async () => {
    const reply = await engine.post('/WorkOrders/File', { fileContent: base64('[{"docNo": "SO-1",'), fileType: 0 });
    expectResult(reply, 'ParseWorkOrderFile', 'InvalidInput', 2);
    expect(reply.body.externalMessage).toMatch(/^Invalid JSON/);
    expect(reply.body.data).toBeNull();
  });
});

describe('POST /Items/File', () => {
  it('forwards a JSON file (fileType 0) and maps the articles', async () => {
    const file = [{ articleNo: 'A-800', text: 'Paint thinner', baseUnit: 'L', grossWeightKg: 0.9 }];
    const reply = await engine.post('/Items/File', { fileContent: base64(JSON.stringify(file)), fileType: 0 });
    expectSuccess(reply, 'ParseItemFile', 1);
    expect(reply.body.data).toEqual([{ number: 'A-800', name: 'Paint thinner', weight: 0.9, unitOfMeasure: 7 }]);
  });

  it('forwards a CSV file (fileType 1), decimal comma included', async () => {
    const csv = 'articleNo;text;baseUnit;grossWeightKg\nA-700;"Wood glue; D3";KG;1,25\nA-701;Screws;PCE;0,5\n';
    const reply = await engine.post('/Items/File', { fileContent: base64(csv), fileType: 1 });
    expectSuccess(reply, 'ParseItemFile', 1);
    expect(reply.body.data).toEqual([
      { number: 'A-700', name: 'Wood glue; D3', weight: 1.25, unitOfMeasure: 4 },
      { number: 'A-701', name: 'Screws', weight: 0.5, unitOfMeasure: 0 },
    ]);
  });

  it('answers InvalidInput (2) with the ERP parse error', async () => {
    const reply = await engine.post('/Items/File', { fileContent: base64('no;text\nA-1;x'), fileType: 1 });
    expectResult(reply, 'ParseItemFile', 'InvalidInput', 2);
    expect(reply.body.externalMessage).toMatch(/^Unexpected CSV header/);
  });
});
