/**
 * What the platform sends that the contract does not allow, or allows loosely: malformed and empty
 * bodies, wrong types, missing fields, query name case, extra fields, hostile path segments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErp, type RunningErp } from '../../examples/erp';
import { loadExampleMapping, mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { expectResult, expectSuccess, problemsOf } from '../support/envelope';
import { startErpAnswering, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: RunningErp;
let engine: RunningEngine;
/** The example mapping in front of a recording ERP that answers 404 to everything. */
let spy: MisbehavingErp;
let spied: RunningEngine;

beforeAll(async () => {
  erp = await startErp({ port: 0 });
  engine = await startEngine(loadExampleMapping(erp.url));
  spy = await startErpAnswering(() => ({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'nothing here' } } }));
  spied = await startEngine(loadExampleMapping(spy.url));
});
afterAll(async () => {
  await Promise.all([engine.close(), spied.close()]);
  await Promise.all([erp.close(), spy.close()]);
});

describe('malformed JSON body → InvalidInput with validationStatus [{path, message}]', () => {
  const cases: [string, string, number][] = [
    ['/WorkOrders/GetReport', 'GetReport', 1],
    ['/WorkOrders/File', 'ParseWorkOrderFile', 2],
    ['/Items/File', 'ParseItemFile', 2],
    ['/WorkOrderProcessing/ConfirmWorkOrderStep', 'ConfirmWorkOrderStep', 0],
    ['/WorkOrders/ForPutWall', 'ConfirmPutWallPlacement', 5],
  ];
  for (const [path, operationId, number] of cases) {
    it(`POST ${path} answers InvalidInput (${number}) and calls nothing`, async () => {
      const before = spy.requests.length;
      const reply = await spied.postRaw(path, '{"workOrdersNumbers": ["SO-1001"],');
      expectResult(reply, operationId, 'InvalidInput', number);
      expect(problemsOf(reply)).toEqual([{ path: 'body', message: expect.stringContaining('not valid JSON') }]);
      expect(reply.body.externalMessage).toBeNull();
      expect(spy.requests.length).toBe(before);
    });
  }
});

describe('bodies that are JSON but not what the contract says', () => {
  it('fileType "x" → InvalidInput (2) at body/fileType', async () => {
    const reply = await engine.post('/WorkOrders/File', { fileContent: 'W10=', fileType: 'x' });
    expectResult(reply, 'ParseWorkOrderFile', 'InvalidInput', 2);
    expect(problemsOf(reply).map((p) => p.path)).toContain('body/fileType');
  });

  it('fileType 7 (not a FileType value) → InvalidInput (2)', async () => {
    const reply = await engine.post('/Items/File', { fileContent: 'W10=', fileType: 7 });
    expectResult(reply, 'ParseItemFile', 'InvalidInput', 2);
    expect(problemsOf(reply).map((p) => p.path)).toContain('body/fileType');
  });

  it('completedAmount "3" (a numeric string) → InvalidInput (5) at body/completedAmount', async () => {
    const reply = await engine.post('/WorkOrders/ForPutWall', { workOrderNumber: 'SO-1001', itemNumber: 'A-100', completedAmount: '3' });
    expectResult(reply, 'ConfirmPutWallPlacement', 'InvalidInput', 5);
    expect(problemsOf(reply)).toEqual([{ path: 'body/completedAmount', message: expect.stringContaining('number') }]);
    expect(erp.state.events).toEqual([]);
  });

  it('GetReport without storageId → InvalidInput (1) listing body/storageId', async () => {
    const reply = await engine.post('/WorkOrders/GetReport', { workOrdersNumbers: ['SO-1001'], remainingRequests: {} });
    expectResult(reply, 'GetReport', 'InvalidInput', 1);
    expect(problemsOf(reply)).toEqual([{ path: 'body/storageId', message: 'is required' }]);
  });

  it('a list where an object is expected → InvalidInput (1) at body', async () => {
    const reply = await engine.post('/WorkOrders/GetReport', []);
    expectResult(reply, 'GetReport', 'InvalidInput', 1);
    expect(problemsOf(reply)[0].path).toBe('body');
  });

  it('empty body → InvalidInput saying a JSON body is expected', async () => {
    const report = await engine.postRaw('/WorkOrders/GetReport', '');
    expectResult(report, 'GetReport', 'InvalidInput', 1);
    expect(problemsOf(report)).toEqual([{ path: 'body', message: expect.stringContaining('empty') }]);
    expectResult(await engine.postRaw('/WorkOrderProcessing/ConfirmWorkOrderStep', '  '), 'ConfirmWorkOrderStep', 'InvalidInput', 0);
    expectResult(await engine.postRaw('/WorkOrders/RelocateCartContainers', ''), 'RelocateCartContainers', 'InvalidInput', 0);
  });
});

describe('a body larger than the engine accepts', () => {
  let small: RunningEngine;
  beforeAll(async () => {
    small = await startEngine(loadExampleMapping(spy.url), { bodyLimit: '1kb' });
  });
  afterAll(() => small.close());

  it('answers InvalidInput (1) saying so, without calling the ERP', async () => {
    const before = spy.requests.length;
    const reply = await small.post('/WorkOrders/GetReport', { workOrdersNumbers: Array.from({ length: 200 }, (_, i) => `SO-${i}`), storageId: 'S', remainingRequests: {} });
    expectResult(reply, 'GetReport', 'InvalidInput', 1);
    expect(problemsOf(reply)).toEqual([{ path: 'body', message: expect.stringContaining('larger than the engine accepts') }]);
    expect(spy.requests.length).toBe(before);
  });
});

describe('GET /WorkOrders/Code query', () => {
  it('Code given twice is not a string: OperationFailed (0) naming query/Code', async () => {
    const reply = await spied.get('/WorkOrders/Code?Code=SO-1&Code=SO-2');
    expectResult(reply, 'GetWorkOrderByCode', 'OperationFailed', 0);
    expect(problemsOf(reply).map((p) => p.path)).toContain('query/Code');
  });


  it('without Code → OperationFailed (0), the route has no InvalidInput, with a message', async () => {
    const before = spy.requests.length;
    const reply = await spied.get('/WorkOrders/Code?StorageName=WH-MAIN');
    expectResult(reply, 'GetWorkOrderByCode', 'OperationFailed', 0);
    expect(problemsOf(reply)).toEqual([{ path: 'calls.order.path', message: expect.stringContaining('{input.Code} gave no value') }]);
    expect(spy.requests.length).toBe(before);
  });

  it('matches query names case-insensitively (code=, CODE=)', async () => {
    for (const query of ['code=SO-1001', 'CODE=SO-1001&storagename=WH-MAIN']) {
      const reply = await engine.get(`/WorkOrders/Code?${query}`);
      expectSuccess(reply, 'GetWorkOrderByCode', 1);
      expect((reply.body.data as { number: string }).number).toBe('SO-1001');
    }
  });
});

describe('hostile path segments never reach another ERP path', () => {
  it('GET /Items/..%2Fadmin stays one encoded segment under /articles/', async () => {
    const before = spy.requests.length;
    const reply = await spied.getVerbatim('/Items/..%2Fadmin');
    expectResult(reply, 'GetItem', 'ItemDoesNotExist', 2);
    expect(reply.body.externalMessage).toBe('nothing here');
    expect(spy.requests.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/articles/..%2Fadmin']);
  });

  it('GET /Items/%2E%2E is refused before any call: OperationFailed (0) on GetItem, InvalidInput (1) on the image', async () => {
    const before = spy.requests.length;
    const item = await spied.getVerbatim('/Items/%2E%2E');
    expectResult(item, 'GetItem', 'OperationFailed', 0);
    expect(problemsOf(item)[0].message).toContain('".."');
    const image = await spied.getVerbatim('/Items/IntegrateImage/%2E%2E');
    expectResult(image, 'GetItemImage', 'InvalidInput', 1);
    expect(spy.requests.length).toBe(before);
  });

  it('GET /Items/%E0%A4%A (not valid percent-encoding) answers the route\'s envelope naming the parameter, before any call', async () => {
    const before = spy.requests.length;
    const item = await spied.getVerbatim('/Items/%E0%A4%A');
    expectResult(item, 'GetItem', 'OperationFailed', 0);
    expect(problemsOf(item)).toEqual([{ path: 'path/number', message: expect.stringContaining('"%E0%A4%A" is not valid percent-encoding') }]);
    const image = await spied.getVerbatim('/Items/IntegrateImage/%E0%A4%A');
    expectResult(image, 'GetItemImage', 'InvalidInput', 1);
    expect(spy.requests.length).toBe(before);
  });

  it('a scanned code "../admin" is one encoded segment under /sales-orders/', async () => {
    const before = spy.requests.length;
    const reply = await spied.get('/WorkOrders/Code?Code=..%2Fadmin');
    expectResult(reply, 'GetWorkOrderByCode', 'WorkOrderDoesNotExist', 2);
    expect(spy.requests.slice(before).map((r) => r.url)).toEqual(['/api/v1/sales-orders/..%2Fadmin']);
  });
});

describe('extra fields the contract does not name', () => {
  let recorder: MisbehavingErp;
  let passThrough: RunningEngine;
  beforeAll(async () => {
    recorder = await startErpAnswering(() => ({ status: 201, body: { ok: true } }));
    passThrough = await startEngine(mappingFromText(`
version: 1
name: pass-through
system:
  baseUrl: \${ERP_URL}
operations:
  ConfirmPutWallPlacement:
    calls:
      - name: forward
        method: POST
        path: /placements
        body: input
  GetReport:
    calls:
      - name: forward
        method: POST
        path: /reports
        body: input
    output: '{ "missingQuantities": {}, "placements": [] }'
`, { ERP_URL: recorder.url }));
  });
  afterAll(async () => {
    await passThrough.close();
    await recorder.close();
  });

  it('are accepted and handed to the mapping, which passes them on', async () => {
    const placement = { workOrderNumber: 'SO-1001', completedAmount: 2, futureField: { nested: [1, 2] } };
    expectSuccess(await passThrough.post('/WorkOrders/ForPutWall', placement), 'ConfirmPutWallPlacement', 1);
    const report = { workOrdersNumbers: [], storageId: 'S1', remainingRequests: {}, platformVersion: '9.1' };
    expectSuccess(await passThrough.post('/WorkOrders/GetReport', report), 'GetReport', 5);
    expect(recorder.requests.map((r) => [r.url, JSON.parse(r.body)])).toEqual([
      ['/api/v1/placements', placement],
      ['/api/v1/reports', report],
    ]);
  });
});
