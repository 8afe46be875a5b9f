/**
 * Issue 29 on a JSON-RPC ERP (test/support/jsonrpc-erp.ts, Odoo 17's way: errors inside HTTP 200, false
 * for empty fields, a login uid, paging in the body) through examples/jsonrpc/odoo.yaml. Before
 * system.refusal, each refusal below was answered Succeed (a 200 was a success), the cache kept it, paging
 * could not reach the body, and a false date failed $isoDateTime.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startEngine, type RunningEngine } from '../support/engine';
import { expectRefused, loadOdooMapping, odooMappingWith } from '../support/jsonrpc-engine';
import { startJsonRpcErp, type JsonRpcErp } from '../support/jsonrpc-erp';

let erp: JsonRpcErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

async function start(options: { extraOrders?: number } = {}): Promise<{ erp: JsonRpcErp; engine: RunningEngine }> {
  erp = await startJsonRpcErp(options);
  engine = await startEngine(loadOdooMapping(erp.url));
  return { erp, engine };
}

const PLACEMENT = { workOrderNumber: 'SO-1001', itemNumber: 'A-100', completedAmount: 3, confirmedLocationName: 'PW-A1', userEmail: 'op@example.com' };

describe('an error inside a 200 is a failure with the ERP\'s words', () => {
  it('a revoked API key: GetWorkOrders and GetItem answer AdapterApiCallFailed with "Access Denied", not Succeed', async () => {
    const { erp, engine } = await start();
    expect((await engine.get('/WorkOrders')).body.isResultSuccess).toBe(true);
    erp.apiKey = 'odoo-key-2';
    expectRefused(await engine.get('/WorkOrders'), 'GetWorkOrders', 'AdapterApiCallFailed', 'Access Denied');
    expectRefused(await engine.get('/Items/A-200'), 'GetItem', 'AdapterApiCallFailed', 'Access Denied');
  });

  it('a wrong key from the start fails the login (Odoo answers false): a failure naming the login, no call made', async () => {
    const { erp, engine } = await start();
    erp.apiKey = 'odoo-key-2';
    const reply = await engine.get('/WorkOrders');
    expect(reply.body).toMatchObject({ isResultSuccess: false, externalMessage: null });
    expect(JSON.stringify(reply.body.validationStatus)).toContain('system.session.login');
    expect(erp.count()).toBe(0);
  });

  it('a placement and a cancellation on a locked order, and a refused attach, answer the failure with Odoo\'s message; nothing is written', async () => {
    const { erp, engine } = await start();
    erp.lockedOrders.add('SO-1001');
    const locked = 'The order SO-1001 is locked: unlock it before changing it.';
    expectRefused(await engine.post('/WorkOrders/ForPutWall', PLACEMENT), 'ConfirmPutWallPlacement', 'AdapterApiCallFailed', locked);
    expectRefused(await engine.post('/WorkOrders/CancelPutWallItem', { workOrderNumber: 'SO-1001', itemNumber: 'A-100' }), 'CancelPutWallItem', 'AdapterApiCallFailed', locked);
    erp.refuseWrites = true;
    expectRefused(await engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber: 'SO-1002', containerCode: 'C-7', isAbandonedOrCancelled: false }), 'AttachWorkOrder', 'AdapterApiClientFailed',
      'The operation wms_attach cannot be completed: the warehouse interface is switched off in the settings.');
    expect(erp.writes).toEqual([]);
  });

  it('one of three calls refused (product.product reads): the whole list fails, no orders with empty item numbers', async () => {
    const { erp, engine } = await start();
    erp.failingModel = 'product.product';
    const reply = await engine.get('/WorkOrders');
    expectRefused(reply, 'GetWorkOrders', 'AdapterApiCallFailed', expect.stringContaining("You are not allowed to access 'product.product' records") as unknown as string);
    expect(erp.count('sale.order.line', 'search_read')).toBe(1);
  });

  it('an outcome rule still comes first: an unknown order on attach is WorkOrderDoesNotExist with Odoo\'s words', async () => {
    const { engine } = await start();
    expectRefused(await engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber: 'SO-404', containerCode: 'C-7', isAbandonedOrCancelled: false }), 'AttachWorkOrder', 'WorkOrderDoesNotExist',
      'Sale order SO-404 does not exist or has been deleted.');
  });
});

describe('the cache keeps only successes', () => {
  it('an AccessError in a 200 is never replayed: the next request reaches Odoo, and only its success is cached', async () => {
    const { erp, engine } = await start();
    erp.failingModel = 'product.product';
    expectRefused(await engine.get('/Items/A-100'), 'GetItem', 'AdapterApiCallFailed', expect.stringContaining('not allowed') as unknown as string);
    erp.failingModel = undefined;
    expect((await engine.get('/Items/A-100')).body).toMatchObject({ isResultSuccess: true, data: { number: 'A-100' } });
    expect((await engine.get('/Items/A-100')).body).toMatchObject({ isResultSuccess: true, data: { number: 'A-100' } });
    expect(erp.count('product.product', 'search_read')).toBe(2);
  });
});

describe('paging in the body', () => {
  it('reads 3 pages of sale orders with offset and limit in execute_kw\'s kwargs', async () => {
    const { erp, engine } = await start({ extraOrders: 120 });
    const reply = await engine.get('/WorkOrders');
    expect(reply.body.isResultSuccess).toBe(true);
    const orders = reply.body.data as { number: string }[];
    expect(orders).toHaveLength(123);
    expect(orders.at(-1)?.number).toBe('SO-2120');
    const pages = erp.calls.filter((call) => call.model === 'sale.order' && call.method === 'search_read');
    expect(pages.map((call) => [call.kwargs.offset, call.kwargs.limit])).toEqual([[0, 50], [50, 50], [100, 50]]);
  });

  it('an ERP that ignores the offset fails the request at the second page (PAGINATION_INCOMPLETE), not after maxPages', async () => {
    const { erp, engine } = await start({ extraOrders: 120 });
    erp.ignoreOffset = true;
    const reply = await engine.get('/WorkOrders');
    expect(reply.body).toMatchObject({ isResultSuccess: false, result: 0 });
    expect(JSON.stringify(reply.body.validationStatus)).toContain('page 2 has the same 50 items as page 1');
    expect(erp.count('sale.order', 'search_read')).toBe(2);
  });
});

describe('system.session', () => {
  it('logs in once, and once more when Odoo says the session expired, sending that call again', async () => {
    const { erp, engine } = await start();
    erp.sessionCalls = 2; // orders and lines pass; products meets the end of the session
    const reply = await engine.get('/WorkOrders');
    expect(reply.body.isResultSuccess).toBe(true);
    expect((reply.body.data as { requests: { itemNumber: string }[] }[])[0].requests.map((r) => r.itemNumber)).toEqual(['A-100', 'A-200']);
    expect(erp.logins).toBe(2);
    expect(erp.calls.filter((call) => call.model === 'product.product').length).toBe(2);
    erp.sessionCalls = undefined;
    await engine.get('/Items/A-100');
    expect(erp.logins).toBe(2);
  });
});

describe('emptyValues: [false]', () => {
  it('an order without a promised date or reference (false) is mapped without them; $isoDateTime(false) never runs', async () => {
    const { engine } = await start();
    const reply = await engine.get('/WorkOrders/Code?Code=SO-1002');
    expect(reply.body).toMatchObject({ isResultSuccess: true, data: { number: 'SO-1002', dueDate: '2026-12-16T08:00:00Z' } });
    const order = reply.body.data as Record<string, unknown>;
    expect(Object.keys(order)).not.toContain('customerRequiredDeliveryDate');
    expect(Object.keys(order)).not.toContain('deliveryNumber');
  });

  it('without it (as before the setting existed) the same order fails on the false date', async () => {
    erp = await startJsonRpcErp();
    engine = await startEngine(odooMappingWith(erp.url, (text) => text.replace('emptyValues: [false]\n', '')));
    const reply = await engine.get('/WorkOrders/Code?Code=SO-1002');
    expect(reply.body.isResultSuccess).toBe(false);
    expect(JSON.stringify(reply.body.validationStatus)).toContain('isoDateTime');
  });
});
