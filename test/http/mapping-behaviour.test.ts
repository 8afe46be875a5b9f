/**
 * How the engine answers for what a mapping does: transforms that throw or loop, output that breaks
 * the contract, routes the mapping leaves unmapped, and paths that are not contract routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { expectResult, expectSuccess, problemsOf } from '../support/envelope';

const HEADER = `
version: 1
name: behaviour
system:
  baseUrl: http://127.0.0.1:9/erp
`;

describe('transforms and output checks', () => {
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine(mappingFromText(`${HEADER}
limits:
  expressionTimeoutMs: 300
  expressionMaxDepth: 50
functions:
  spin: function($x) { $spin($x) }
operations:
  GetWorkOrders:
    output: $error('boom')
  GetWorkOrdersForPutWall:
    output: '[{ "number": input.code, "requests": [], "dueDate": $lookup({}, "due") }]'   # gives no dueDate at run time
  GetItem:
    output: $error('boom')
  GetItemImage:
    output: ( $f := function($x) { $f($x) }; $f(1) )
  ParseItemFile:
    output: ( $deep := function($x) { 1 + $deep($x + 1) }; $deep(1) )
  GetWorkOrderByCode:
    output: $spin(input.Code)
`));
  });
  afterAll(() => engine.close());

  it('a transform that throws → WorkOrderInvalid (1) on GET /WorkOrders, the reason in validationStatus', async () => {
    const reply = await engine.get('/WorkOrders');
    expectResult(reply, 'GetWorkOrders', 'WorkOrderInvalid', 1);
    expect(problemsOf(reply)).toEqual([{ path: 'output', message: expect.stringContaining('boom') }]);
    expect(problemsOf(reply)[0].message).toContain('test-mapping.yaml:'); // points back into the mapping file
    expect(reply.body.data).toBeNull();
  });

  it('a transform that throws → OperationFailed (0) on a route without WorkOrderInvalid', async () => {
    const reply = await engine.get('/Items/A-100');
    expectResult(reply, 'GetItem', 'OperationFailed', 0);
    expect(problemsOf(reply)[0].message).toContain('boom');
  });

  it('output without the required dueDate → WorkOrderInvalid (1) at data/0/dueDate', async () => {
    const reply = await engine.get('/WorkOrders/ForPutWall/PW-01');
    expectResult(reply, 'GetWorkOrdersForPutWall', 'WorkOrderInvalid', 1);
    expect(problemsOf(reply)).toEqual([{ path: 'data/0/dueDate', message: 'is required' }]);
    expect(reply.body.data).toBeNull();
  });

  it('an expression that loops forever is stopped by the limits and answers OperationFailed', async () => {
    const loop = await engine.get('/Items/IntegrateImage/A-100');
    expectResult(loop, 'GetItemImage', 'OperationFailed', 0);
    expect(problemsOf(loop)).toEqual([{ path: 'output', message: expect.stringContaining('timeout after 300 milliseconds') }]);
    const deep = await engine.post('/Items/File', { fileContent: 'W10=', fileType: 0 });
    expectResult(deep, 'ParseItemFile', 'OperationFailed', 0);
    expect(problemsOf(deep)[0].message).toMatch(/depth|stack/i);
  });

  it('a mapping function that loops is stopped per request, and the next request runs afresh', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const reply = await engine.get('/WorkOrders/Code?Code=SO-1001');
      expectResult(reply, 'GetWorkOrderByCode', 'OperationFailed', 0);
      expect(problemsOf(reply)[0].message).toContain('timeout after 300 milliseconds');
    }
  });
});

describe('unmapped routes', () => {
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine(mappingFromText(`${HEADER}
operations:
  ReportWorkOrderStatus:
    acknowledge: true
`));
  });
  afterAll(() => engine.close());

  // Valid input for every route, so that the answer is about the mapping, not the input.
  const unmapped: [string, string, unknown, string, number][] = [
    ['GET', '/WorkOrders', undefined, 'GetWorkOrders', 5],
    ['GET', '/WorkOrders/Code?Code=SO-1', undefined, 'GetWorkOrderByCode', 5],
    ['GET', '/WorkOrders/ForPutWall/PW-01', undefined, 'GetWorkOrdersForPutWall', 5],
    ['POST', '/WorkOrders/File', { fileContent: 'W10=', fileType: 0 }, 'ParseWorkOrderFile', 6],
    ['POST', '/WorkOrders/GetReport', { workOrdersNumbers: [], storageId: 'S', remainingRequests: {} }, 'GetReport', 3],
    ['POST', '/WorkOrders/ForPutWall', {}, 'ConfirmPutWallPlacement', 4],
    ['POST', '/WorkOrders/CancelPutWallItem', {}, 'CancelPutWallItem', 4],
    ['POST', '/WorkOrders/CancelWorkOrderRequest', {}, 'CancelWorkOrderRequest', 1],
    ['POST', '/WorkOrders/RelocateCartContainers', [], 'RelocateCartContainers', 4],
    ['POST', '/WorkOrders/AttachWorkOrder', {}, 'AttachWorkOrder', 8],
    ['POST', '/WorkOrderProcessing/ConfirmWorkOrderStep', {}, 'ConfirmWorkOrderStep', 4],
    ['POST', '/CartWorkOrderProcessing/ConfirmWorkOrderStep', {}, 'ConfirmCartWorkOrderStep', 4],
    ['GET', '/Items/A-100', undefined, 'GetItem', 5],
    ['POST', '/Items/File', { fileContent: 'W10=', fileType: 1 }, 'ParseItemFile', 6],
    ['GET', '/Items/IntegrateImage/A-100', undefined, 'GetItemImage', 3],
  ];
  for (const [method, path, body, operationId, number] of unmapped) {
    it(`${method} ${path} → AdapterNotDefined (${number})`, async () => {
      const reply = method === 'GET' ? await engine.get(path) : await engine.post(path, body);
      expectResult(reply, operationId, 'AdapterNotDefined', number);
      expect(reply.body.validationStatus).toBeNull();
      if ('data' in reply.body) expect(reply.body.data).toBeNull();
    });
  }

  it('unmapped export routes answer Success (2) with the contract defaults', async () => {
    const columns = await engine.get('/WorkOrders/WorkOrderExportColumns');
    expectSuccess(columns, 'GetExportColumns', 2);
    expect(columns.body.data).toEqual([]);
    const values = await engine.post('/WorkOrders/WorkOrderExportValues', [{ workOrderNumber: 'SO-1', externalData: '{}' }]);
    expectSuccess(values, 'GetExportValues', 2);
    expect(values.body.data).toEqual([]);
    const label = await engine.get('/WorkOrders/WorkOrderExternalIndexableValueLabel');
    expectSuccess(label, 'GetExternalIndexableValueLabel', 2);
    expect(label.body.data).toEqual({ label: '' });
  });

  it('unmapped routes still check their input first', async () => {
    const reply = await engine.post('/WorkOrders/GetReport', { workOrdersNumbers: [] });
    expectResult(reply, 'GetReport', 'InvalidInput', 1);
  });

  it('an acknowledged event answers Succeed (1) without data and without calling anything', async () => {
    expectSuccess(await engine.post('/WorkOrders/Status', { number: 'SO-1', status: 3 }), 'ReportWorkOrderStatus', 1);
  });

  it('a path that is not a contract route answers 404', async () => {
    for (const path of ['/WorkOrders/Unknown', '/Items', '/api/v1/sales-orders']) {
      const response = await fetch(engine.url + path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ error: expect.stringContaining('no contract route') });
    }
  });

  it('a contract path with the wrong method answers 405 in JSON, naming the allowed method', async () => {
    const response = await fetch(`${engine.url}/WorkOrders/GetReport`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('POST');
    expect(await response.json()).toEqual({ error: 'GET is not allowed on /WorkOrders/GetReport; allowed: POST' });
  });
});
