/**
 * The ERP misbehaves: down, 500, too slow, HTML instead of JSON, connection reset. Every case must end
 * in the route's envelope with the contract's result, never a hang or a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExampleMapping, mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { expectResult, problemsOf } from '../support/envelope';
import { deadErpUrl, startErpAnswering, type Answer, type MisbehavingErp } from '../support/misbehaving-erp';

const REPORT = { workOrdersNumbers: ['SO-1001'], storageId: 'WH-MAIN', remainingRequests: {} };
const PLACEMENT = { workOrderNumber: 'SO-1001', itemNumber: 'A-100', completedAmount: 1 };

function misbehavingErp(answer: Answer) {
  const running: { erp?: MisbehavingErp; engine?: RunningEngine } = {};
  beforeAll(async () => {
    running.erp = await startErpAnswering(() => answer);
    running.engine = await startEngine(loadExampleMapping(running.erp.url));
  });
  afterAll(async () => {
    await running.engine?.close();
    await running.erp?.close();
  });
  return () => running.engine as RunningEngine;
}

describe('ERP down (connection refused)', () => {
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine(loadExampleMapping(await deadErpUrl()));
  });
  afterAll(() => engine.close());

  it('answers AdapterApiClientFailed on every kind of route, naming the call', async () => {
    const orders = await engine.get('/WorkOrders');
    expectResult(orders, 'GetWorkOrders', 'AdapterApiClientFailed', 3);
    expect(problemsOf(orders)).toEqual([{ path: 'calls.orders', message: expect.stringContaining('connection refused') }]);
    expectResult(await engine.post('/WorkOrders/GetReport', REPORT), 'GetReport', 'AdapterApiClientFailed', 2);
    // delivery: outbox (the example's plain events): stored and answered at once; the delivery is retried later.
    expectResult(await engine.post('/WorkOrders/ForPutWall', PLACEMENT), 'ConfirmPutWallPlacement', 'Succeed', 1);
    expectResult(await engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber: 'SO-1001', containerCode: 'C-100' }), 'AttachWorkOrder', 'AdapterApiClientFailed', 7);
    expectResult(await engine.get('/Items/IntegrateImage/A-100'), 'GetItemImage', 'AdapterApiClientFailed', 2);
    expectResult(await engine.post('/WorkOrderProcessing/ConfirmWorkOrderStep', { itemNumber: 'A-100' }), 'ConfirmWorkOrderStep', 'AdapterApiClientFailed', 3);
  });
});

describe('ERP answers 500', () => {
  const engine = misbehavingErp({ status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'Internal ERP error' } } });

  it('answers AdapterApiCallFailed where the route has it', async () => {
    const orders = await engine().get('/WorkOrders');
    expectResult(orders, 'GetWorkOrders', 'AdapterApiCallFailed', 4);
    expect(problemsOf(orders)).toEqual([{ path: 'calls.orders', message: 'the external system answered 500' }]); // the ERP's path stays in the log (issue 18, item 7)
    expectResult(await engine().get('/WorkOrders/Code?Code=SO-1001'), 'GetWorkOrderByCode', 'AdapterApiCallFailed', 4);
    expectResult(await engine().get('/Items/A-100'), 'GetItem', 'AdapterApiCallFailed', 4);
  });

  it('answers AdapterApiClientFailed on routes without AdapterApiCallFailed', async () => {
    expectResult(await engine().post('/WorkOrders/GetReport', REPORT), 'GetReport', 'AdapterApiClientFailed', 2);
    expectResult(await engine().post('/WorkOrders/AttachWorkOrder', { workOrderNumber: 'SO-1001', containerCode: 'C-100' }), 'AttachWorkOrder', 'AdapterApiClientFailed', 7);
    // Outbox events are answered once stored, whatever the ERP says (test/outbox covers their delivery).
    expectResult(await engine().post('/WorkOrders/CancelWorkOrderRequest', { workOrderNumber: 'SO-1001' }), 'CancelWorkOrderRequest', 'Success', 2);
    expectResult(await engine().post('/WorkOrders/RelocateCartContainers', []), 'RelocateCartContainers', 'Success', 1);
    expectResult(await engine().get('/Items/IntegrateImage/A-100'), 'GetItemImage', 'AdapterApiClientFailed', 2);
  });
});

describe('ERP slower than the timeout', () => {
  let erp: MisbehavingErp;
  let engine: RunningEngine;
  beforeAll(async () => {
    erp = await startErpAnswering(() => ({ status: 200, body: { salesOrders: [] }, delayMs: 2000 }));
    engine = await startEngine(mappingFromText(`
version: 1
name: slow-erp
system:
  baseUrl: \${ERP_URL}
  timeoutMs: 200
operations:
  GetWorkOrders:
    calls:
      - name: orders
        method: GET
        path: /sales-orders
    output: calls.orders.body.salesOrders
`, { ERP_URL: erp.url }));
  });
  afterAll(async () => {
    await engine.close();
    await erp.close();
  });

  it('answers AdapterApiClientFailed saying no answer came within the timeout', async () => {
    const reply = await engine.get('/WorkOrders');
    expectResult(reply, 'GetWorkOrders', 'AdapterApiClientFailed', 3);
    expect(problemsOf(reply)).toEqual([{ path: 'calls.orders', message: expect.stringContaining('no answer within 200 ms') }]);
    expect(erp.requests).toHaveLength(1);
  });
});

describe('ERP answers HTML with status 200', () => {
  const engine = misbehavingErp({ status: 200, raw: '<html><body>Maintenance until 6 am</body></html>', headers: { 'content-type': 'text/html' } });

  it('answers AdapterApiCallFailed with a message saying the answer is not JSON', async () => {
    const reply = await engine().get('/WorkOrders');
    expectResult(reply, 'GetWorkOrders', 'AdapterApiCallFailed', 4);
    const [problem] = problemsOf(reply);
    expect(problem.path).toBe('calls.orders');
    expect(problem.message).toContain('not JSON');
    expect(problem.message).toContain('text/html');
    expectResult(await engine().get('/Items/A-100'), 'GetItem', 'AdapterApiCallFailed', 4);
  });
});

describe('ERP resets the connection', () => {
  const engine = misbehavingErp({ drop: true });

  it('answers AdapterApiClientFailed', async () => {
    const reply = await engine().get('/WorkOrders');
    expectResult(reply, 'GetWorkOrders', 'AdapterApiClientFailed', 3);
    expect(problemsOf(reply)).toEqual([{ path: 'calls.orders', message: expect.stringContaining('connection reset') }]);
    expectResult(await engine().post('/WorkOrders/GetReport', REPORT), 'GetReport', 'AdapterApiClientFailed', 2);
  });
});

describe('ERP answers a redirect', () => {
  const engine = misbehavingErp({ status: 302, raw: '', headers: { 'content-type': 'text/plain', location: 'http://127.0.0.1:9/elsewhere' } });

  it('is not followed and not taken for an empty success: AdapterApiCallFailed naming the status', async () => {
    const reply = await engine().get('/WorkOrders');
    expectResult(reply, 'GetWorkOrders', 'AdapterApiCallFailed', 4);
    const [problem] = problemsOf(reply);
    expect(problem.path).toBe('calls.orders');
    expect(problem.message).toContain('answered 302');
    expect(problem.message).toContain('redirects are not followed');
  });
});

describe('ERP answers more than system.maxResponseBytes', () => {
  let erp: MisbehavingErp;
  let engine: RunningEngine;
  beforeAll(async () => {
    erp = await startErpAnswering(() => ({ status: 200, body: { salesOrders: [], padding: 'x'.repeat(4096) } }));
    engine = await startEngine(mappingFromText(`
version: 1
name: big-answer
system:
  baseUrl: \${ERP_URL}
  maxResponseBytes: 1024
operations:
  GetWorkOrders:
    calls:
      - name: orders
        method: GET
        path: /sales-orders
    output: calls.orders.body.salesOrders
`, { ERP_URL: erp.url }));
  });
  afterAll(async () => {
    await engine.close();
    await erp.close();
  });

  it('answers AdapterApiClientFailed saying the answer is too large', async () => {
    const reply = await engine.get('/WorkOrders');
    expectResult(reply, 'GetWorkOrders', 'AdapterApiClientFailed', 3);
    expect(problemsOf(reply)).toEqual([{ path: 'calls.orders', message: expect.stringContaining('larger than 1024 bytes') }]);
  });
});
