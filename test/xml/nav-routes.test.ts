/**
 * Issue 30's proof: every one of the 19 routes of examples/soap/nav.yaml, served by the real engine over
 * HTTP against the Dynamics NAV-style SOAP stand-in (test/support/soap-erp.ts), answers as the ERP's data
 * says; the events reach the ERP's codeunit with their values.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ONE_PIXEL_PNG } from '../support/nav-records';
import { startNav, type NavRig } from './nav-start';

let rig: NavRig;
beforeEach(async () => {
  rig = await startNav();
});
afterEach(() => rig.close());

const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('examples/soap/nav.yaml: the work order routes', () => {
  it('GET /WorkOrders reads the released orders with ReadMultiple, one-line and many-line orders alike', async () => {
    const reply = await rig.engine.get('/WorkOrders');
    expect(reply.body).toMatchObject({ isResultSuccess: true });
    const orders = reply.body.data as { number: string; requests: unknown[] }[];
    expect(orders.map((o) => o.number)).toEqual(['SO-1001', 'SO-1002', 'SO-1003', 'SO-1004', 'SO-1006']);
    expect(orders.map((o) => o.requests.length)).toEqual([2, 1, 3, 1, 1]);
    expect(orders[0]).toMatchObject({
      number: 'SO-1001', dueDate: '2026-12-01T00:00:00Z', designatedStorageName: 'WH-MAIN',
      requests: [
        { itemNumber: 'A-100', itemName: 'Hex bolt M8', requestedAmount: 12, unitOfMeasure: 0, order: 10000, requestType: 1, designatedLocationName: 'A-01-02' },
        { itemNumber: 'A-200', requestedAmount: 50, unitOfMeasure: 1, requestType: 2 },
      ],
    });
    const [sent] = rig.erp.requests;
    expect(sent).toMatchObject({ path: '/Page/SalesOrder', soapAction: '"urn:microsoft-dynamics-schemas/page/salesorder:ReadMultiple"' });
    expect(sent!.body).not.toContain('bookmarkKey');
  });

  it('GET /WorkOrders/Code reads one order: a one-line order gives a list of one request; unknown and blocked orders are WorkOrderDoesNotExist', async () => {
    const one = await rig.engine.get('/WorkOrders/Code?Code=SO-1002');
    expect(one.body).toMatchObject({ isResultSuccess: true, data: { number: 'SO-1002', requests: [{ itemNumber: 'A-100', requestedAmount: 4 }] } });
    expect((one.body.data as { requests: unknown[] }).requests).toHaveLength(1);
    const many = await rig.engine.get('/WorkOrders/Code?Code=SO-1003');
    expect((many.body.data as { requests: unknown[] }).requests).toHaveLength(3);
    expect((await rig.engine.get('/WorkOrders/Code?Code=SO-4711')).body).toMatchObject({ result: 2, externalMessage: 'Order SO-4711 is not known in the ERP' });
    expect((await rig.engine.get('/WorkOrders/Code?Code=SO-1005')).body).toMatchObject({ result: 2, externalMessage: 'Customer credit limit exceeded' });
  });

  it('GET /WorkOrders/ForPutWall/{code} filters by batch; an empty batch is WorkOrderInvalid', async () => {
    const batch = await rig.engine.get('/WorkOrders/ForPutWall/PW-1');
    expect((batch.body.data as { number: string }[]).map((o) => o.number)).toEqual(['SO-1002', 'SO-1003']);
    const none = await rig.engine.get('/WorkOrders/ForPutWall/PW-9');
    expect(none.body).toMatchObject({ isResultSuccess: false, externalMessage: "Put Wall batch PW-9 has no released orders in the ERP" });
  });

  it('POST /WorkOrders/File reads a JSON export; POST /WorkOrders/GetReport asks the codeunit with the vendor-docs envelope', async () => {
    const file = await rig.engine.post('/WorkOrders/File', { fileType: 0, fileContent: base64({ orders: [{ orderNo: 'SO-7', due: '2026-12-01', customer: 'Acme', lines: [{ article: 'A-1', qty: 2, unit: 'PCE' }] }] }) });
    expect(file.body).toMatchObject({ isResultSuccess: true, data: [{ number: 'SO-7', requests: [{ itemNumber: 'A-1', requestedAmount: 2, unitOfMeasure: 0 }] }] });

    const report = await rig.engine.post('/WorkOrders/GetReport', { workOrdersNumbers: ['SO-1003', 'SO-1006'], storageId: 'WH-MAIN', remainingRequests: {} });
    expect(report.body).toMatchObject({
      isResultSuccess: true,
      data: {
        missingQuantities: { 'A-300': 3 },
        placements: [{ itemNumber: 'A-300', locationName: 'C-02-01', amount: 3 }, { itemNumber: 'A-100', locationName: 'A-01-02', amount: 500 }, { itemNumber: 'A-200', locationName: 'B-03-01', amount: 1000 }],
      },
    });
    expect(rig.erp.events.at(-1)).toEqual({ action: 'CompletionReport', parameters: { orderNos: 'SO-1003,SO-1006', locationCode: 'WH-MAIN' } });
  });

  it('the export routes and the label answer without the ERP', async () => {
    expect((await rig.engine.get('/WorkOrders/WorkOrderExportColumns')).body).toMatchObject({ data: [{ key: 'customerName' }, { key: 'container' }] });
    const order = (await rig.engine.get('/WorkOrders/Code?Code=SO-1006')).body.data as { externalData: string };
    const values = await rig.engine.post('/WorkOrders/WorkOrderExportValues', [{ workOrderNumber: 'SO-1006', externalData: order.externalData }]);
    expect(values.body).toMatchObject({ isResultSuccess: true, data: [{ workOrderNumber: 'SO-1006', values: { customerName: 'Bau & Garten GmbH', container: '' } }] });
    expect((await rig.engine.get('/WorkOrders/WorkOrderExternalIndexableValueLabel')).body).toMatchObject({ data: { label: 'NAV order no.' } });
    expect(rig.erp.requests).toHaveLength(1);
  });
});

describe('examples/soap/nav.yaml: the events', () => {
  it('put-wall placement, put-wall cancel, line cancel, relocation and status reach the codeunit with their values', async () => {
    const ok = { isResultSuccess: true };
    expect((await rig.engine.post('/WorkOrders/ForPutWall', { workOrderNumber: 'SO-1002', itemNumber: 'A-100', completedAmount: 4, confirmedLocationName: 'PW-01-A1', userEmail: 'ann@example.com' })).body).toMatchObject(ok);
    expect((await rig.engine.post('/WorkOrders/CancelPutWallItem', { workOrderNumber: 'SO-1002', itemNumber: 'A-100' })).body).toMatchObject(ok);
    expect((await rig.engine.post('/WorkOrders/CancelWorkOrderRequest', { workOrderNumber: 'SO-1001', requestExternalIdentifier: '20000', userEmail: 'ann@example.com', request: { itemNumber: 'A-200' } })).body).toMatchObject(ok);
    expect((await rig.engine.post('/WorkOrders/RelocateCartContainers', [
      { containerCode: 'C-1', destinationLocationName: 'PACK-1', workOrder: { number: 'SO-1001' } },
      { containerCode: 'C-2', destinationLocationName: 'PACK-2', workOrder: { number: 'SO-1003' } },
    ])).body).toMatchObject(ok);
    expect((await rig.engine.post('/WorkOrders/Status', { number: 'SO-1001', status: 3 })).body).toMatchObject(ok);
    expect((await rig.engine.post('/WorkOrders/Status', { number: 'SO-1003', status: null })).body).toMatchObject(ok);
    expect(rig.erp.events).toEqual([
      { action: 'PutWallPlacement', parameters: { orderNo: 'SO-1002', itemNo: 'A-100', quantity: '4', bin: 'PW-01-A1', user: 'ann@example.com' } },
      { action: 'CancelPutWallItem', parameters: { orderNo: 'SO-1002', itemNo: 'A-100' } },
      { action: 'CancelLine', parameters: { orderNo: 'SO-1001', lineNo: '20000', itemNo: 'A-200', user: 'ann@example.com' } },
      { action: 'RelocateContainers', parameters: { Relocation: [{ '@container': 'C-1', '@target': 'PACK-1', '@orderNo': 'SO-1001' }, { '@container': 'C-2', '@target': 'PACK-2', '@orderNo': 'SO-1003' }] } },
      { action: 'ReportStatus', parameters: { orderNo: 'SO-1001', status: 'Completed' } },
      { action: 'ReportStatus', parameters: { orderNo: 'SO-1003' } },
    ]);
    // The cancelled line is gone from the order the platform reads next.
    const order = await rig.engine.get('/WorkOrders/Code?Code=SO-1001');
    expect((order.body.data as { requests: { itemNumber: string }[] }).requests.map((r) => r.itemNumber)).toEqual(['A-100']);
  });

  it('attach reads the order, checks the container, and updates with the Key; already attached and occupied containers are their results', async () => {
    const attach = (workOrderNumber: string, containerCode: string, isAbandonedOrCancelled = false) =>
      rig.engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber, containerCode, isAbandonedOrCancelled });
    expect((await attach('SO-1001', 'C-7')).body).toMatchObject({ isResultSuccess: true, result: 0 });
    expect(rig.erp.orders.get('SO-1001')).toMatchObject({ containerCode: 'C-7', version: 2 });
    expect((await attach('SO-1001', 'C-8')).body).toMatchObject({ isResultSuccess: false, externalMessage: 'Order SO-1001 is in container C-7' });
    expect((await attach('SO-1002', 'C-7')).body).toMatchObject({ isResultSuccess: false, externalMessage: 'Container C-7 holds order SO-1001' });
    expect((await attach('SO-4711', 'C-9')).body).toMatchObject({ isResultSuccess: false, externalMessage: 'Order SO-4711 is not known in the ERP' });
    expect((await attach('SO-1001', 'C-7', true)).body).toMatchObject({ isResultSuccess: true });
    expect(rig.erp.orders.get('SO-1001')).toMatchObject({ containerCode: '', version: 3 });
  });

  it('step confirmations: no correction gives null; a pick above the stock gives the ERP correction', async () => {
    const step = { workOrderNumber: 'SO-1001', requestId: 7, itemNumber: 'A-100', requestAmountInBaseUnitOfMeasure: 12, requestRemainingAmountInBaseUnitOfMeasure: 0, updateWorkOrderRequest: { id: 42 } };
    expect((await rig.engine.post('/WorkOrderProcessing/ConfirmWorkOrderStep', step)).body).toMatchObject({ isResultSuccess: true, data: { updateWorkOrderRequest: null } });
    const short = await rig.engine.post('/WorkOrderProcessing/ConfirmWorkOrderStep', { ...step, workOrderNumber: 'SO-1003', itemNumber: 'A-300', requestAmountInBaseUnitOfMeasure: 5 });
    expect(short.body).toMatchObject({ data: { updateWorkOrderRequest: { id: 42, description: 'Short stock of A-300 for SO-1003', itemRequests: [{ requestId: 7, itemNumber: 'A-300', requestedAmount: 3, isCancelled: false }] } } });
    const cart = { ...step, requestId: 9, workOrderNumber: 'SO-1003', itemNumber: 'A-300', requestAmountInBaseUnitOfMeasure: 5, amountToConfirmSummary: { locationName: 'A-01-03', containersBreakdown: [{ containerCode: 'C-1', amountToConfirmInBaseUnitOfMeasure: 2 }, { containerCode: 'C-2', amountToConfirmInBaseUnitOfMeasure: 2 }] } };
    expect((await rig.engine.post('/CartWorkOrderProcessing/ConfirmWorkOrderStep', cart)).body).toMatchObject({ isResultSuccess: true, data: { updateWorkOrderRequest: { id: 42, itemRequests: [{ requestId: 9, requestedAmount: 3 }] } } });
    expect(rig.erp.events.at(-1)).toMatchObject({ action: 'ConfirmPick', parameters: { confirmed: '4', quantity: '5' } });
  });
});

describe('examples/soap/nav.yaml: the item routes', () => {
  it('GET /Items/{n} reads values in attributes; unknown is ItemDoesNotExist; the file route and the image route answer', async () => {
    const item = await rig.engine.get('/Items/A-100');
    expect(item.body).toMatchObject({ isResultSuccess: true, data: { number: 'A-100', name: 'Hex bolt M8', unitOfMeasure: 0, weight: 0.012, externalIdentifier: '1;A-100' } });
    expect((await rig.engine.get('/Items/A-999')).body).toMatchObject({ isResultSuccess: false, externalMessage: 'Item A-999 is not known in the ERP' });
    const file = await rig.engine.post('/Items/File', { fileType: 0, fileContent: base64([{ number: 'A-5', name: 'Washer' }]) });
    expect(file.body).toMatchObject({ isResultSuccess: true, data: [{ number: 'A-5', name: 'Washer' }] });
    expect((await rig.engine.get('/Items/IntegrateImage/A-100')).body).toMatchObject({ isResultSuccess: true, data: ONE_PIXEL_PNG });
    const noPicture = await rig.engine.get('/Items/IntegrateImage/A-200');
    expect(noPicture.body).toMatchObject({ isResultSuccess: false });
    const unknown = await rig.engine.get('/Items/IntegrateImage/A-999');
    expect(unknown.body).toMatchObject({ isResultSuccess: false, externalMessage: "The Item does not exist. Identification fields and values: No.='A-999'" });
  });
});
