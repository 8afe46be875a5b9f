import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { drop, json, slow, startMisbehavingErp, status, type MisbehavingErp } from '../support/misbehaving-erp';

const reportOperation = (forEach: string) => `  GetReport:
    calls:
      - name: orders
        method: GET
        path: /orders/{item}
        forEach: ${forEach}
    outcomes:
      - when: response.status = 404
        result: WorkOrderDoesNotExist
        message: "'Order ' & item & ' is unknown'"
    output: |
      {
        "missingQuantities": {},
        "placements": [calls.orders.{ "itemNumber": body.article, "locationName": body.bin, "amount": index }]
      }
`;

const exportValuesOperation = `  GetExportValues:
    calls:
      - name: values
        method: POST
        path: /values
        body: '{ "orders": [chunk.workOrderNumber] }'
        forEach: { list: input, chunk: 2, maxConcurrency: 2 }
    output: '[calls.values.body.rows.{ "workOrderNumber": docNo, "values": { "route": route } }]'
`;

const report = (numbers: string[]) => ({ workOrdersNumbers: numbers, storageId: 'WH', remainingRequests: {} });
const placement = (n: number, index: number) => ({ itemNumber: `A-${n}`, locationName: `B-${n}`, amount: index });

let erp: MisbehavingErp;
let engine: RunningEngine | undefined;
beforeEach(async () => {
  erp = await startMisbehavingErp();
  for (const n of [1, 2, 3, 4]) erp.on(`GET /orders/SO-${n}`, () => json({ article: `A-${n}`, bin: `B-${n}` }));
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await erp.close();
});

describe('one request per element', () => {
  it('keeps input order although a later element answers first', async () => {
    erp.on('GET /orders/SO-1', () => slow(60, { article: 'A-1', bin: 'B-1' }));
    engine = await startEngine(head(erp.url) + reportOperation('{ list: input.workOrdersNumbers, maxConcurrency: 3 }'));
    const envelope = await engine.call('POST', '/WorkOrders/GetReport', report(['SO-1', 'SO-2', 'SO-3']));
    expect(envelope).toEqual({
      isResultSuccess: true, result: 5, validationStatus: null, externalMessage: null,
      data: { missingQuantities: {}, placements: [placement(1, 0), placement(2, 1), placement(3, 2)] },
    });
    expect(erp.count()).toBe(3);
  });

  it('fails naming the element, and starts no further element', async () => {
    erp.on('GET /orders/SO-2', () => status(500));
    engine = await startEngine(head(erp.url) + reportOperation('{ list: input.workOrdersNumbers, maxConcurrency: 1 }'));
    const envelope = await engine.call('POST', '/WorkOrders/GetReport', report(['SO-1', 'SO-2', 'SO-3']));
    expect(envelope).toEqual({
      isResultSuccess: false, result: 2, externalMessage: null, data: null, // AdapterApiClientFailed
      validationStatus: [{ path: 'calls.orders[1]', message: 'calls.orders, element 1 ("SO-2"): the external system answered 500 to GET /api/orders/SO-2' }],
    });
    expect(erp.count()).toBe(2);
  });

  it('lets an outcome rule decide for one element', async () => {
    erp.on('GET /orders/SO-2', () => status(404));
    engine = await startEngine(head(erp.url) + reportOperation('{ list: input.workOrdersNumbers, maxConcurrency: 1 }'));
    const envelope = await engine.call('POST', '/WorkOrders/GetReport', report(['SO-1', 'SO-2', 'SO-3']));
    expect(envelope).toEqual({ isResultSuccess: false, result: 4, validationStatus: null, externalMessage: 'Order SO-2 is unknown', data: null });
    expect(erp.count()).toBe(2);
  });

  it('skips failing elements with onError: skip', async () => {
    erp.on('GET /orders/SO-2', () => status(500));
    erp.on('GET /orders/SO-3', () => drop());
    engine = await startEngine(head(erp.url) + reportOperation('{ list: input.workOrdersNumbers, maxConcurrency: 2, onError: skip }'));
    const envelope = await engine.call('POST', '/WorkOrders/GetReport', report(['SO-1', 'SO-2', 'SO-3', 'SO-4']));
    expect(envelope).toMatchObject({ isResultSuccess: true, result: 5, data: { placements: [placement(1, 0), placement(4, 3)] } });
    expect(erp.count()).toBe(4);
    // The request journal (and dry-run) name what was left out and why.
    const [summary] = await engine.engine.journal.list({});
    const entry = await engine.engine.journal.get(summary.id);
    expect(entry?.steps.flatMap((step) => (step.step === 'skipped' ? [step.label] : [])).sort()).toEqual(['orders[1]', 'orders[2]']);
  });

  it('makes no call for an empty list', async () => {
    engine = await startEngine(head(erp.url) + reportOperation('{ list: input.workOrdersNumbers }'));
    const envelope = await engine.call('POST', '/WorkOrders/GetReport', report([]));
    expect(envelope).toMatchObject({ isResultSuccess: true, data: { missingQuantities: {}, placements: [] } });
    expect(erp.count()).toBe(0);
  });
});

describe('one request per chunk', () => {
  it('sends chunks of N elements and joins the answers in order', async () => {
    erp.on('POST /values', (request) => {
      const { orders } = JSON.parse(request.body) as { orders: string[] };
      return orders[0] === 'SO-1' ? slow(40, { rows: orders.map((docNo) => ({ docNo, route: `R-${docNo}` })) }) : json({ rows: orders.map((docNo) => ({ docNo, route: `R-${docNo}` })) });
    });
    engine = await startEngine(head(erp.url) + exportValuesOperation);
    const input = ['SO-1', 'SO-2', 'SO-3', 'SO-4', 'SO-5'].map((workOrderNumber) => ({ workOrderNumber, externalData: null }));
    const envelope = await engine.call('POST', '/WorkOrders/WorkOrderExportValues', input);
    expect(envelope).toMatchObject({ isResultSuccess: true, result: 2 });
    expect(envelope.data).toEqual(input.map(({ workOrderNumber }) => ({ workOrderNumber, values: { route: `R-${workOrderNumber}` } })));
    expect(erp.requests.map((r) => JSON.parse(r.body).orders).sort()).toEqual([['SO-1', 'SO-2'], ['SO-3', 'SO-4'], ['SO-5']]);
    expect(erp.count('POST /values')).toBe(3);
  });

  it('names the chunk that failed', async () => {
    erp.on('POST /values', (request) => (JSON.parse(request.body).orders[0] === 'SO-3' ? status(503) : json({ rows: [] })));
    engine = await startEngine(head(erp.url) + exportValuesOperation.replace('maxConcurrency: 2', 'maxConcurrency: 1'));
    const input = ['SO-1', 'SO-2', 'SO-3', 'SO-4', 'SO-5'].map((workOrderNumber) => ({ workOrderNumber }));
    const envelope = await engine.call('POST', '/WorkOrders/WorkOrderExportValues', input);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(JSON.stringify(envelope.validationStatus)).toContain('calls.values, chunk 1 (elements 2-3): the external system answered 503');
    expect(erp.count()).toBe(2);
  });
});
