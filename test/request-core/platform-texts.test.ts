/**
 * Issue 39 on mappings/example.yaml and the example ERP: what the platform is told speaks of the right
 * thing. The platform's own bad input speaks of its request, not of JSONata; an output that fails its
 * contract check after the ERP took a write says the ERP took it (the platform must not retry blindly, a
 * second step confirmation); `system.emptyValues` applies to uploaded files as to the ERP's answers.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startErp, type RunningErp } from '../../examples/erp';
import { exampleEnv } from '../../examples/example-env';
import { closeAfterEach, EXAMPLE_MAPPING, loadExampleMapping, mappingFromText, startEngine, type RunningEngine } from '../support/engine';

let erp: RunningErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

/** The example mapping with its text changed first. */
function exampleWith(url: string, change: (text: string) => string) {
  const text = fs.readFileSync(EXAMPLE_MAPPING, 'utf8');
  const changed = change(text);
  expect(changed).not.toBe(text);
  return mappingFromText(changed, exampleEnv(url));
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
const CSV = 1;
const JSON_FILE = 0;

describe('the platform\'s own bad input', () => {
  it('POST /WorkOrders/WorkOrderExportValues with {} speaks of the request, with no JSONata hint', async () => {
    erp = await startErp({ host: '127.0.0.1', port: 0 });
    engine = await startEngine(loadExampleMapping(erp.url));
    const reply = await engine.post('/WorkOrders/WorkOrderExportValues', {});
    expect(reply.body).toMatchObject({ isResultSuccess: false, data: null });
    expect(reply.body.validationStatus).toEqual([{ path: 'body', message: 'must be a list' }]);
  });
});

describe('an output check that fails after the ERP took a write', () => {
  it('a step confirmation whose update model lacks id: the envelope and the journal say the ERP already took it', async () => {
    erp = await startErp({ host: '127.0.0.1', port: 0 });
    engine = await startEngine(exampleWith(erp.url, (text) => text.replace('          "id": $workOrderId,\n', '')));
    const step = {
      storageName: 'WH-MAIN', userEmail: 'op@example.com', workOrderNumber: 'SO-1003', workOrderExternalIdentifier: '50003',
      requestId: 7, requestType: 1, requestExternalIdentifier: '50003-10', itemNumber: 'A-300', itemUnitOfMeasure: 7,
      requestAmountInBaseUnitOfMeasure: 5, requestRemainingAmountInBaseUnitOfMeasure: 0, amountToConfirmPlacingInBaseUnitOfMeasure: 5,
      updateWorkOrderRequest: { id: 99, description: 'Workshop supplies Leipzig' },
    };
    const reply = await engine.post('/WorkOrderProcessing/ConfirmWorkOrderStep', step);
    const taken = 'the external system has already taken this request (calls.confirmation (POST) answered as a success), but the adapter could not build its answer to the platform; do not send it again before checking the external system';
    expect(reply.body).toMatchObject({ isResultSuccess: false, externalMessage: taken, data: null });
    expect(reply.body.validationStatus).toEqual([expect.objectContaining({ path: 'data/updateWorkOrderRequest/id', message: 'is required' })]);
    expect(erp.state.events.filter((event) => event.type === 'pick-confirmation')).toHaveLength(1);
    const [summary] = await engine.engine.journal.list({});
    const entry = await engine.engine.journal.get(summary.id);
    expect(entry?.failure?.message.startsWith(`${taken}: the output does not match the contract`)).toBe(true);
    expect(entry?.envelope?.externalMessage).toBe(taken);
  });

  it('a read that fails its output check says nothing of a write', async () => {
    erp = await startErp({ host: '127.0.0.1', port: 0 });
    engine = await startEngine(exampleWith(erp.url, (text) => text.replace('    output: calls.orders.items.$workOrder($)', `    output: 'calls.orders.items.{ "number": no }'`)));
    const reply = await engine.get('/WorkOrders');
    expect(reply.body).toMatchObject({ isResultSuccess: false, externalMessage: null });
  });
});

describe('system.emptyValues on uploaded files', () => {
  const withEmptyValues = (values: string) => (text: string) => text.replace('  timeoutMs: 5000\n', `  timeoutMs: 5000\n  emptyValues: ${values}\n`);
  const CSV_FILE = 'orderNo;dueDate;customer;shipment;article;itemName;qty;unit;lot;line\nSO-1;01.12.2026;Baumarkt;N/A;A-100;Bolt;3;PCE;N/A;1\n';

  it('a CSV cell holding one is an empty cell; a JSON field holding one is absent', async () => {
    engine = await startEngine(exampleWith('http://127.0.0.1:9', withEmptyValues('["N/A", false]')));
    const csv = await engine.post('/WorkOrders/File', { fileContent: base64(CSV_FILE), fileType: CSV });
    expect(csv.body).toMatchObject({ isResultSuccess: true, data: [{ number: 'SO-1', requests: [{ itemNumber: 'A-100', requestedAmount: 3 }] }] });
    const [order] = csv.body.data as { requests: object[] }[];
    expect(Object.keys(order)).not.toContain('deliveryNumber');
    expect(Object.keys(order.requests[0])).not.toContain('lotNumber');
    const json = JSON.stringify({ orders: [{ orderNo: 'SO-2', due: '2026-12-01', customer: false, lines: [{ article: 'A-100', qty: 2, unit: 'PCE' }] }] });
    const fromJson = await engine.post('/WorkOrders/File', { fileContent: base64(json), fileType: JSON_FILE });
    expect(fromJson.body).toMatchObject({ isResultSuccess: true, data: [{ number: 'SO-2' }] });
    expect(Object.keys((fromJson.body.data as object[])[0])).not.toContain('description');
  });

  it('without the setting the same cells are values', async () => {
    engine = await startEngine(exampleWith('http://127.0.0.1:9', (text) => text.replace('  timeoutMs: 5000\n', '  timeoutMs: 5001\n')));
    const csv = await engine.post('/WorkOrders/File', { fileContent: base64(CSV_FILE), fileType: CSV });
    expect(csv.body).toMatchObject({ isResultSuccess: true, data: [{ deliveryNumber: 'N/A', requests: [{ lotNumber: 'N/A' }] }] });
  });
});
