/**
 * Work order intake, report and export routes through mappings/example.yaml against the real example
 * ERP: the whole envelope of each answer, with values from the ERP's seed data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErp, type RunningErp } from '../../examples/erp';
import { loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';
import { expectResult, expectSuccess } from '../support/envelope';

let erp: RunningErp;
let engine: RunningEngine;

beforeAll(async () => {
  erp = await startErp({ port: 0 });
  engine = await startEngine(loadExampleMapping(erp.url));
});
afterAll(async () => {
  await engine.close();
  await erp.close();
});

type Order = { number: string; requests: Record<string, unknown>[] } & Record<string, unknown>;

const SO_1001 = {
  number: 'SO-1001',
  externalIdentifier: '50001',
  description: 'Weekly restock Berlin',
  dueDate: '2026-12-01T00:00:00Z',
  customerRequiredDeliveryDate: '2026-12-02T00:00:00Z',
  workOrderTypeName: 'STANDARD',
  designatedStorageName: 'WH-MAIN',
  deliveryNumber: 'SHP-9001',
  alternativeStartNumber: '4006381333931',
  externalData: JSON.stringify({ customerName: 'Baumarkt Berlin Mitte', route: 'R12', priority: 'high' }),
  requests: [
    {
      itemNumber: 'A-100', itemName: 'Hex bolt M8', itemDescription: 'Zinc plated hex bolt, M8 x 40', languageIsoCode: 'en',
      requestedAmount: 12, unitOfMeasure: 0, lotNumber: 'L-2026-11', itemExternalIdentifier: 'ART-100',
      requestExternalIdentifier: '50001-10', requestExternalData: '{"packing":"box"}', requestType: 1, order: 10, designatedLocationName: 'A-01-02',
    },
    {
      itemNumber: 'A-200', itemName: 'Copper cable NYM-J 3x1.5', itemDescription: 'Installation cable NYM-J 3x1.5 mm², grey, sold by the metre',
      languageIsoCode: 'en', requestedAmount: 50, unitOfMeasure: 1, lotNumber: null, itemExternalIdentifier: 'ART-200',
      requestExternalIdentifier: '50001-20', requestExternalData: '{"packing":"coil"}', requestType: 1, order: 20, designatedLocationName: 'B-03-01',
    },
  ],
};

describe('GET /WorkOrders', () => {
  it('answers Succeed (2) with every released order mapped to the contract', async () => {
    const reply = await engine.get('/WorkOrders');
    expectSuccess(reply, 'GetWorkOrders', 2);
    const orders = reply.body.data as Order[];
    expect(orders.map((o) => o.number)).toEqual(['SO-1001', 'SO-1002', 'SO-1003', 'SO-1004', 'SO-1006', 'SO-1007', 'SO-1008']);
    expect(orders[0]).toEqual(SO_1001);
    const cement = orders.find((o) => o.number === 'SO-1002') as Order;
    expect(cement.requests[0]).toMatchObject({ itemNumber: 'A-400', requestedAmount: 250, unitOfMeasure: 4 }); // KG → Kilogram
    // The ERP has no wish date for SO-1002: the optional field is left out, not null and not a failure.
    expect(cement).not.toHaveProperty('customerRequiredDeliveryDate');
    const giveBack = orders.find((o) => o.number === 'SO-1004') as Order;
    expect(giveBack.requests.map((r) => r.requestType)).toEqual([2, 2]); // direction IN → PlaceItem
  });
});

describe('GET /WorkOrders/Code', () => {
  it('answers Succeed (1) with the order of the scanned code', async () => {
    const reply = await engine.get('/WorkOrders/Code?Code=SO-1001&StorageName=WH-MAIN');
    expectSuccess(reply, 'GetWorkOrderByCode', 1);
    expect(reply.body.data).toEqual(SO_1001);
  });

  it('answers WorkOrderDoesNotExist (2) with a message for an unknown code', async () => {
    const reply = await engine.get('/WorkOrders/Code?Code=SO-9999&StorageName=WH-MAIN');
    expectResult(reply, 'GetWorkOrderByCode', 'WorkOrderDoesNotExist', 2);
    expect(reply.body).toMatchObject({ externalMessage: 'Order SO-9999 is not known in the ERP', validationStatus: null, data: null });
  });

  it('answers WorkOrderDoesNotExist (2) with the ERP block reason for a blocked order', async () => {
    const reply = await engine.get('/WorkOrders/Code?Code=SO-1005&StorageName=WH-MAIN');
    expectResult(reply, 'GetWorkOrderByCode', 'WorkOrderDoesNotExist', 2);
    expect(reply.body).toMatchObject({ externalMessage: 'Customer credit limit exceeded', validationStatus: null, data: null });
  });
});

describe('GET /WorkOrders/ForPutWall/{code}', () => {
  it('answers Succeed (2) with both orders of batch PW-01', async () => {
    const reply = await engine.get('/WorkOrders/ForPutWall/PW-01');
    expectSuccess(reply, 'GetWorkOrdersForPutWall', 2);
    const orders = reply.body.data as Order[];
    expect(orders.map((o) => o.number)).toEqual(['SO-1001', 'SO-1002']);
    expect(orders[0]).toEqual(SO_1001);
  });

  it('answers WorkOrderInvalid (1) with a message for an unknown batch', async () => {
    const reply = await engine.get('/WorkOrders/ForPutWall/PW-77');
    expectResult(reply, 'GetWorkOrdersForPutWall', 'WorkOrderInvalid', 1);
    expect(reply.body.externalMessage).toBe('Put Wall batch PW-77 is not known in the ERP');
  });
});

describe('POST /WorkOrders/GetReport', () => {
  it('answers Succeed (5) with missing quantities and the placements of the orders', async () => {
    const reply = await engine.post('/WorkOrders/GetReport', { workOrdersNumbers: ['SO-1001'], storageId: 'WH-MAIN', remainingRequests: { 'A-100': 2, 'A-200': 0 } });
    expectSuccess(reply, 'GetReport', 5);
    expect(reply.body.data).toEqual({
      missingQuantities: { 'A-100': 2 },
      placements: [
        { itemNumber: 'A-100', locationName: 'A-01-02', amount: 12 },
        { itemNumber: 'A-200', locationName: 'B-03-01', amount: 50 },
      ],
    });
  });

  it('answers an empty report when nothing is missing and no position has a bin', async () => {
    const reply = await engine.post('/WorkOrders/GetReport', { workOrdersNumbers: ['SO-1002'], storageId: 'WH-MAIN', remainingRequests: {} });
    expectSuccess(reply, 'GetReport', 5);
    expect(reply.body.data).toEqual({ missingQuantities: {}, placements: [{ itemNumber: 'A-400', locationName: 'C-10-01', amount: 250 }] });
  });

  it('answers WorkOrderDoesNotExist (4) with the ERP message for an unknown order', async () => {
    const reply = await engine.post('/WorkOrders/GetReport', { workOrdersNumbers: ['SO-9999'], storageId: 'WH-MAIN', remainingRequests: {} });
    expectResult(reply, 'GetReport', 'WorkOrderDoesNotExist', 4);
    expect(reply.body).toMatchObject({ externalMessage: 'Sales order SO-9999 not found', data: null });
  });
});

describe('export routes', () => {
  it('GET /WorkOrders/WorkOrderExportColumns answers Success (2) with the static columns', async () => {
    const reply = await engine.get('/WorkOrders/WorkOrderExportColumns');
    expectSuccess(reply, 'GetExportColumns', 2);
    expect(reply.body.data).toEqual([
      { key: 'customerName', header: 'Customer' },
      { key: 'route', header: 'Delivery route' },
      { key: 'priority', header: 'Priority' },
    ]);
  });

  it('POST /WorkOrders/WorkOrderExportValues answers Success (2) with values read from externalData', async () => {
    const orders = (await engine.get('/WorkOrders')).body.data as Order[];
    const rows = orders.slice(0, 2).map((o) => ({ workOrderNumber: o.number, externalData: o.externalData, deliveryNoteExternalData: null, deliveryAddressExternalData: null }));
    const reply = await engine.post('/WorkOrders/WorkOrderExportValues', [...rows, { workOrderNumber: 'SO-X', externalData: null }]);
    expectSuccess(reply, 'GetExportValues', 2);
    expect(reply.body.data).toEqual([
      { workOrderNumber: 'SO-1001', values: { customerName: 'Baumarkt Berlin Mitte', route: 'R12', priority: 'high' } },
      { workOrderNumber: 'SO-1002', values: { customerName: 'Bau & Garten Potsdam', route: 'R12', priority: 'normal' } },
      { workOrderNumber: 'SO-X', values: {} }, // no externalData: empty cells, not a failure
    ]);
  });

  it('GET /WorkOrders/WorkOrderExternalIndexableValueLabel answers Success (2) with the label', async () => {
    const reply = await engine.get('/WorkOrders/WorkOrderExternalIndexableValueLabel');
    expectSuccess(reply, 'GetExternalIndexableValueLabel', 2);
    expect(reply.body.data).toEqual({ label: 'ERP order id' });
  });
});
