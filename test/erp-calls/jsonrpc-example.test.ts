/**
 * examples/jsonrpc/odoo.yaml serves all 19 routes on the JSON-RPC stand-in, passes validate --strict,
 * and its outbox events are never `delivered` when Odoo refused them inside a 200: dead-lettered with
 * Odoo's answer, or retried when the refusal rule's retryable says the refusal passes (a row lock).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRoute } from '../../engine/contract/routes';
import { createEngine, type Engine } from '../../engine/core/engine';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import type { OutboxStore } from '../../engine/outbox/store';
import { PROJECT_ROOT } from '../../engine/paths';
import { closeAfterEach, startEngine, type RunningEngine } from '../support/engine';
import { loadOdooMapping, ODOO_MAPPING } from '../support/jsonrpc-engine';
import { startJsonRpcErp, type JsonRpcErp } from '../support/jsonrpc-erp';

let erp: JsonRpcErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const step = { workOrderNumber: 'SO-1003', requestId: 7, requestExternalIdentifier: '31', itemNumber: 'A-400', requestAmountInBaseUnitOfMeasure: 2, requestRemainingAmountInBaseUnitOfMeasure: 0, updateWorkOrderRequest: { id: 99 } };

/** One request per contract route, each of which the example answers with the route's success. */
const ROUTES: readonly [string, 'GET' | 'POST', string, unknown?][] = [
  ['GetWorkOrders', 'GET', '/WorkOrders'],
  ['GetWorkOrderByCode', 'GET', '/WorkOrders/Code?Code=SO-1001'],
  ['GetWorkOrdersForPutWall', 'GET', '/WorkOrders/ForPutWall/PW-01'],
  ['ParseWorkOrderFile', 'POST', '/WorkOrders/File', { fileType: 0, fileContent: base64(JSON.stringify({ orders: [{ orderNo: 'F-1', due: '2026-12-01', lines: [{ article: 'A-100', qty: 2, unit: 'Units' }] }] })) }],
  ['GetReport', 'POST', '/WorkOrders/GetReport', { workOrdersNumbers: ['SO-1001'], storageId: 'WH', remainingRequests: { 'A-300': 5 } }],
  ['GetExportColumns', 'GET', '/WorkOrders/WorkOrderExportColumns'],
  ['GetExportValues', 'POST', '/WorkOrders/WorkOrderExportValues', [{ workOrderNumber: 'SO-1001', externalData: '{"warehouse":"WH"}' }]],
  ['GetExternalIndexableValueLabel', 'GET', '/WorkOrders/WorkOrderExternalIndexableValueLabel'],
  ['ConfirmPutWallPlacement', 'POST', '/WorkOrders/ForPutWall', { workOrderNumber: 'SO-1001', itemNumber: 'A-100', completedAmount: 3, confirmedLocationName: 'PW-A1', userEmail: 'op@example.com' }],
  ['CancelPutWallItem', 'POST', '/WorkOrders/CancelPutWallItem', { workOrderNumber: 'SO-1001', itemNumber: 'A-100' }],
  ['CancelWorkOrderRequest', 'POST', '/WorkOrders/CancelWorkOrderRequest', { workOrderNumber: 'SO-1001', requestExternalIdentifier: '11', userEmail: 'op@example.com', request: { requestId: 4, itemNumber: 'A-100', requestedAmountInBaseUnitOfMeasure: 5, completedAmountInBaseUnitOfMeasure: 0, isCancelled: true, type: 1 } }],
  ['RelocateCartContainers', 'POST', '/WorkOrders/RelocateCartContainers', [{ containerCode: 'C-1', destinationLocationName: 'DOCK-1', workOrder: { number: 'SO-1002', requests: [] } }]],
  ['AttachWorkOrder', 'POST', '/WorkOrders/AttachWorkOrder', { workOrderNumber: 'SO-1001', containerCode: 'C-1', isAbandonedOrCancelled: false }],
  ['ReportWorkOrderStatus', 'POST', '/WorkOrders/Status', { number: 'SO-1001', status: 3 }],
  ['ConfirmWorkOrderStep', 'POST', '/WorkOrderProcessing/ConfirmWorkOrderStep', step],
  ['ConfirmCartWorkOrderStep', 'POST', '/CartWorkOrderProcessing/ConfirmWorkOrderStep', { ...step, amountToConfirmSummary: { locationName: 'D-1', containersBreakdown: [{ containerCode: 'C-1', amountToConfirmInBaseUnitOfMeasure: 2, itemUnitOfMeasure: 0 }] } }],
  ['GetItem', 'GET', '/Items/A-100'],
  ['ParseItemFile', 'POST', '/Items/File', { fileType: 0, fileContent: base64(JSON.stringify([{ number: 'A-900', name: 'Imported' }])) }],
  ['GetItemImage', 'GET', '/Items/IntegrateImage/A-100'],
];

describe('examples/jsonrpc/odoo.yaml', () => {
  it('passes validate --strict: it loads and its recorded tests pass, every expression exercised', () => {
    const binary = path.join(PROJECT_ROOT, 'dist', 'engine', 'cli', 'main.js');
    const output = execFileSync(process.execPath, [binary, 'validate', '--strict', '-e', 'ODOO_URL=http://odoo.test', '-e', 'ODOO_KEY=k', ODOO_MAPPING], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', LOG_LEVEL: 'silent' } });
    expect(output).toContain('ok  19 of 19 routes mapped');
  });

  it('serves all 19 routes on the stand-in, each with its success; the writes reach Odoo', async () => {
    erp = await startJsonRpcErp();
    engine = await startEngine(loadOdooMapping(erp.url));
    expect(ROUTES.map(([operationId]) => operationId).sort()).toEqual([...new Set(ROUTES.map(([operationId]) => operationId))].sort());
    expect(ROUTES).toHaveLength(19);
    for (const [operationId, method, target, body] of ROUTES) {
      const reply = await engine.call(method, target, body);
      expect(reply, `${operationId}: ${JSON.stringify(reply)}`).toMatchObject({ isResultSuccess: true, result: findRoute(operationId)?.results[findRoute(operationId)?.successResult ?? ''] });
    }
    expect(erp.writes.map((write) => write.method)).toEqual(['wms_putwall_place', 'wms_putwall_cancel', 'wms_cancel_line', 'wms_relocate', 'wms_attach', 'wms_set_status', 'wms_confirm_step', 'wms_confirm_step']);
    // The step confirmations found SO-1003's gloves short (no stock): the order was read for the correction.
    expect(erp.count('sale.order', 'search_read')).toBeGreaterThanOrEqual(3);
    expect(erp.logins).toBe(1);
  });
});

describe('delivery: outbox on Odoo', () => {
  const stores: OutboxStore[] = [];
  const engines: Engine[] = [];
  afterEach(async () => {
    for (const open of engines.splice(0)) await open.close();
    for (const store of stores.splice(0)) await store.close();
  });

  /** The engine's clock, moved by the test past a retry's wait. */
  let now = Date.now();

  async function outboxEngine(): Promise<{ erp: JsonRpcErp; engine: Engine; store: OutboxStore }> {
    erp = await startJsonRpcErp();
    const store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'jsonrpc-outbox-')));
    stores.push(store);
    const created = createEngine({ mappings: [loadOdooMapping(erp.url)], outbox: store, now: () => now });
    engines.push(created);
    return { erp, engine: created, store };
  }

  const status = (target: Engine, number: string) => target.handle({ method: 'POST', path: '/WorkOrders/Status', body: { number, status: 3 } });

  it('an event Odoo refuses inside a 200 is dead-lettered with Odoo\'s answer, never delivered', async () => {
    const { erp, engine: outbox, store } = await outboxEngine();
    erp.lockedOrders.add('SO-1001');
    expect((await status(outbox, 'SO-1001')).envelope).toMatchObject({ isResultSuccess: true });
    await outbox.deliverer!.runOnce();
    expect(await store.stats()).toMatchObject({ pending: 0, delivered: 0, dead: 1 });
    const [dead] = await store.list({ status: ['dead'] });
    expect(dead.last).toMatchObject({ status: 200 });
    expect(JSON.stringify(dead.last)).toContain('The order SO-1001 is locked');
    expect(erp.writes).toEqual([]);
  });

  it('a refusal the rule calls retryable (a row lock) is tried again, and delivered once Odoo takes it', async () => {
    const { erp, engine: outbox, store } = await outboxEngine();
    erp.busyOrders.add('SO-1001');
    await status(outbox, 'SO-1001');
    await outbox.deliverer!.runOnce();
    const [pending] = await store.list({ status: ['pending'] });
    expect(pending).toMatchObject({ attempts: 1 });
    expect(JSON.stringify(pending.last)).toContain('could not obtain lock');
    erp.busyOrders.clear();
    now += 10 * 60_000;
    for (let pass = 0; pass < 5 && (await store.stats()).pending > 0; pass += 1) await outbox.deliverer!.runOnce();
    expect(await store.stats()).toMatchObject({ pending: 0, delivered: 1, dead: 0 });
    expect(erp.writes).toEqual([{ method: 'wms_set_status', orders: ['SO-1001'], values: { status: 'Completed' } }]);
  });
});
