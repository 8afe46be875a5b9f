/**
 * Event routes through mappings/example.yaml: the envelope without data, the event as the example ERP
 * recorded it, and each ERP error code of AttachWorkOrder as the contract's result.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
beforeEach(async () => {
  await fetch(`${erp.url}/events`, { method: 'DELETE' });
  erp.state.containers.clear();
});

/** What the ERP says it received, read over its own HTTP API. */
async function erpEvents(): Promise<{ type: string; body: unknown }[]> {
  const answer = (await (await fetch(`${erp.url}/events`)).json()) as { events: { type: string; body: unknown }[] };
  return answer.events.map(({ type, body }) => ({ type, body }));
}

describe('event routes forward to the ERP and answer the envelope without data', () => {
  it('POST /WorkOrders/ForPutWall → Succeed (1), placement recorded', async () => {
    const reply = await engine.post('/WorkOrders/ForPutWall', {
      workOrderNumber: 'SO-1001', itemNumber: 'A-100', itemNames: [{ languageIsoCode: 'en', name: 'Hex bolt M8', isDefault: true }],
      completedAmount: 3, confirmedLocationName: 'PW-A1', userEmail: 'op@example.com', externalData: null,
    });
    expectSuccess(reply, 'ConfirmPutWallPlacement', 1);
    expect(await erpEvents()).toEqual([{ type: 'putwall-placement', body: { docNo: 'SO-1001', article: 'A-100', qty: 3, bin: 'PW-A1', user: 'op@example.com' } }]);
  });

  it('POST /WorkOrders/CancelPutWallItem → Succeed (1), cancellation recorded', async () => {
    const reply = await engine.post('/WorkOrders/CancelPutWallItem', { workOrderNumber: 'SO-1002', itemNumber: 'A-500' });
    expectSuccess(reply, 'CancelPutWallItem', 1);
    expect(await erpEvents()).toEqual([{ type: 'putwall-cancellation', body: { docNo: 'SO-1002', article: 'A-500' } }]);
  });

  it('POST /WorkOrders/CancelWorkOrderRequest → Success (2), position cancellation recorded', async () => {
    const reply = await engine.post('/WorkOrders/CancelWorkOrderRequest', {
      workOrderNumber: 'SO-1003', workOrderTypeName: 'STANDARD', requestExternalIdentifier: '50003-10', userEmail: 'op@example.com',
      request: { requestId: 41, itemNumber: 'A-300', requestedAmountInBaseUnitOfMeasure: 5, completedAmountInBaseUnitOfMeasure: 0, isCancelled: true, type: 1 },
    });
    expectSuccess(reply, 'CancelWorkOrderRequest', 2);
    expect(await erpEvents()).toEqual([{ type: 'position-cancellation', body: { docNo: 'SO-1003', posId: '50003-10', article: 'A-300', user: 'op@example.com' } }]);
  });

  it('POST /WorkOrders/RelocateCartContainers → Success (1), relocation recorded as a list', async () => {
    const reply = await engine.post('/WorkOrders/RelocateCartContainers', [
      { containerCode: 'C-100', destinationLocationName: 'DOCK-1', workOrder: { number: 'SO-1001', requests: [{ itemNumber: 'A-100', requestedAmount: 12, completedAmount: 12 }] } },
      { containerCode: 'C-101', destinationLocationName: 'DOCK-2', workOrder: { number: 'SO-1003', requests: [] } },
    ]);
    expectSuccess(reply, 'RelocateCartContainers', 1);
    expect(await erpEvents()).toEqual([{
      type: 'cart-relocation',
      body: [{ container: 'C-100', target: 'DOCK-1', docNo: 'SO-1001' }, { container: 'C-101', target: 'DOCK-2', docNo: 'SO-1003' }],
    }]);
  });

  it('POST /WorkOrders/Status → Succeed (1), status name recorded', async () => {
    const reply = await engine.post('/WorkOrders/Status', { number: 'SO-1001', status: 3 });
    expectSuccess(reply, 'ReportWorkOrderStatus', 1);
    expect(await erpEvents()).toEqual([{ type: 'order-status', body: { docNo: 'SO-1001', status: 'Completed' } }]);
  });

  it('POST /WorkOrders/AttachWorkOrder → Success (0), assignment recorded and applied', async () => {
    const reply = await engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber: 'SO-1001', containerCode: 'C-100', isAbandonedOrCancelled: false });
    expectSuccess(reply, 'AttachWorkOrder', 0);
    expect(await erpEvents()).toEqual([{ type: 'container-assignment', body: { docNo: 'SO-1001', container: 'C-100', release: false } }]);
    expect(erp.state.containers.get('C-100')).toBe('SO-1001');
    const release = await engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber: 'SO-1001', containerCode: 'C-100', isAbandonedOrCancelled: true });
    expectSuccess(release, 'AttachWorkOrder', 0);
    expect(erp.state.containers.has('C-100')).toBe(false);
  });
});

describe('POST /WorkOrders/AttachWorkOrder: each ERP error code becomes the contract result', () => {
  const attach = (workOrderNumber: string | null, containerCode: string, isAbandonedOrCancelled = false) =>
    engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber, containerCode, isAbandonedOrCancelled });

  it('ORDER_NOT_FOUND → WorkOrderDoesNotExist (3)', async () => {
    const reply = await attach('SO-9999', 'C-100');
    expectResult(reply, 'AttachWorkOrder', 'WorkOrderDoesNotExist', 3);
    expect(reply.body.externalMessage).toBe('Sales order SO-9999 not found');
  });

  it('CONTAINER_NOT_FOUND → ContainerDoesNotExist (4)', async () => {
    const reply = await attach('SO-1001', 'C-200', true);
    expectResult(reply, 'AttachWorkOrder', 'ContainerDoesNotExist', 4);
    expect(reply.body.externalMessage).toBe('Container C-200 is not assigned');
  });

  it('ORDER_ALREADY_ASSIGNED → WorkOrderAlreadyAttached (5)', async () => {
    expectSuccess(await attach('SO-1001', 'C-100'), 'AttachWorkOrder', 0);
    const reply = await attach('SO-1001', 'C-101');
    expectResult(reply, 'AttachWorkOrder', 'WorkOrderAlreadyAttached', 5);
    expect(reply.body.externalMessage).toBe('Sales order SO-1001 is already in container C-100');
  });

  it('CONTAINER_OCCUPIED → ContainerAlreadyAttached (6)', async () => {
    expectSuccess(await attach('SO-1001', 'C-100'), 'AttachWorkOrder', 0);
    const reply = await attach('SO-1002', 'C-100');
    expectResult(reply, 'AttachWorkOrder', 'ContainerAlreadyAttached', 6);
    expect(reply.body.externalMessage).toBe('Container C-100 already holds SO-1001');
  });

  it('CONTAINER_INVALID → InvalidContainer (9)', async () => {
    const reply = await attach('SO-1001', 'BOX-1');
    expectResult(reply, 'AttachWorkOrder', 'InvalidContainer', 9);
    expect(reply.body.externalMessage).toBe('Container code BOX-1 is invalid (expected C-000)');
    expect(await erpEvents()).toEqual([]); // rejected events are not recorded
  });

  it('an ERP error no rule claims (400) → AdapterApiClientFailed (7), the route has no AdapterApiCallFailed', async () => {
    const reply = await attach(null, 'C-100');
    expectResult(reply, 'AttachWorkOrder', 'AdapterApiClientFailed', 7);
    expect(reply.body.validationStatus).toEqual([{ path: 'calls.assignment', message: expect.stringContaining('answered 400') }]);
  });
});
