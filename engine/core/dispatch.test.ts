import { describe, expect, it } from 'vitest';
import { findRoute } from '../contract/routes';
import { createSchemaRegistry } from '../contract/schema-registry';
import { OperationFailure } from '../errors';
import { TransportError, type HttpClient, type OutboundRequest, type OutboundResponse } from '../http/client';
import { checkMappingText } from '../mapping/load';
import { createConnectionPool } from './connections';
import { dispatch, failureOutcome } from './dispatch';

/** A fake ERP: answers in order, records what was asked. */
function fakeHttp(answers: (Partial<OutboundResponse> | TransportError)[]): HttpClient & { sent: OutboundRequest[] } {
  const sent: OutboundRequest[] = [];
  return {
    sent,
    async send(request) {
      sent.push(request);
      const answer = answers.shift();
      if (!answer) throw new Error('unexpected call');
      if (answer instanceof TransportError) throw answer;
      return { status: 200, headers: {}, body: null, durationMs: 1, ...answer };
    },
    close() {},
  };
}

function load(operations: string) {
  const text = `version: 1\nname: t\nsystem: { baseUrl: "http://erp.test/api" }\noperations:\n${operations}`;
  const { mapping, issues } = checkMappingText(text, 't.yaml', {});
  if (!mapping) throw new Error(issues.map((i) => `${i.line}:${i.col} ${i.message}`).join('\n'));
  return mapping;
}

async function run(operations: string, operationId: string, input: unknown, http: HttpClient) {
  const mapping = load(operations);
  const route = findRoute(operationId)!;
  // The dispatch stage alone: no input check (the HTTP tests cover it), a fresh connection per case.
  const prepared = { route, checkData: route.dataSchema ? createSchemaRegistry().compile(route.dataSchema) : undefined };
  const pool = createConnectionPool(http);
  try {
    return await dispatch(mapping, prepared, input, [], { connection: () => pool.connectionFor(mapping.system) });
  } catch (error) {
    if (error instanceof OperationFailure) return { ...failureOutcome(route, error), kind: error.kind };
    throw error;
  }
}

const ITEM_FLOW = `  GetItem:
    calls:
      - { name: article, method: GET, path: "/articles/{input.number}" }
      - { name: stock, method: GET, path: "/stock/{calls.article.body.id}" }
    outcomes:
      - { when: "response.status = 404", result: ItemDoesNotExist, message: "'no ' & input.number" }
      - { when: "call = 'stock' and response.body.unknown = true", result: Succeed, message: "'stock unknown'" }
    output: '{ "number": calls.article.body.no, "minimumStockQuantity": calls.stock.body.min }'
`;

describe('runFlow through dispatch', () => {
  it('runs calls in order; later calls and the output see earlier answers', async () => {
    const http = fakeHttp([{ body: { no: 'A-1', id: 7 } }, { body: { min: 3 } }]);
    const outcome = await run(ITEM_FLOW, 'GetItem', { number: 'A-1' }, http);
    expect(http.sent.map((r) => r.url.pathname)).toEqual(['/api/articles/A-1', '/api/stock/7']);
    expect(outcome).toEqual({ resultName: 'Succeed', data: { number: 'A-1', minimumStockQuantity: 3 }, externalMessage: null });
  });

  it('the first matching rule decides, with its message; no further call is made', async () => {
    const http = fakeHttp([{ status: 404, body: { error: 'x' } }]);
    expect(await run(ITEM_FLOW, 'GetItem', { number: 'Z' }, http)).toEqual({ resultName: 'ItemDoesNotExist', externalMessage: 'no Z' });
    expect(http.sent).toHaveLength(1);
  });

  it('a rule giving the success result ends the calls and goes on to the output', async () => {
    const http = fakeHttp([{ body: { no: 'A-1', id: 7 } }, { body: { unknown: true } }]);
    const outcome = await run(ITEM_FLOW, 'GetItem', { number: 'A-1' }, http);
    expect(outcome).toMatchObject({ resultName: 'Succeed', data: { number: 'A-1' }, externalMessage: 'stock unknown' });
  });

  it('a rule giving the success result never sees an error status: a 409 that matches it is still a failure', async () => {
    const http = fakeHttp([{ body: { no: 'A-1', id: 7 } }, { status: 409, body: { unknown: true } }]);
    const outcome = await run(ITEM_FLOW, 'GetItem', { number: 'A-1' }, http);
    expect(outcome).toMatchObject({ resultName: 'AdapterApiCallFailed', kind: 'ERP_ERROR_STATUS', problems: [{ path: 'calls.stock', message: 'the external system answered 409' }] });
  });

  it('an unclaimed error status gives AdapterApiCallFailed naming the call', async () => {
    const outcome = await run(ITEM_FLOW, 'GetItem', { number: 'A-1' }, fakeHttp([{ status: 500, body: {} }]));
    expect(outcome).toMatchObject({ resultName: 'AdapterApiCallFailed', kind: 'ERP_ERROR_STATUS', problems: [{ path: 'calls.article' }] });
  });

  it('an unreadable body gives AdapterApiCallFailed; on a route without it, AdapterApiClientFailed', async () => {
    const html = { status: 200, body: undefined, bodyError: 'the answer is not JSON' };
    expect(await run(ITEM_FLOW, 'GetItem', { number: 'A' }, fakeHttp([html]))).toMatchObject({ resultName: 'AdapterApiCallFailed', kind: 'ERP_BODY_UNREADABLE' });
    const report = `  GetReport:\n    calls: [{ name: r, method: POST, path: /r }]\n    output: '{ "missingQuantities": {}, "placements": [] }'\n`;
    expect(await run(report, 'GetReport', {}, fakeHttp([html]))).toMatchObject({ resultName: 'AdapterApiClientFailed' });
  });

  it('no answer at all gives AdapterApiClientFailed', async () => {
    const outcome = await run(ITEM_FLOW, 'GetItem', { number: 'A' }, fakeHttp([new TransportError('TIMEOUT', 'GET x: no answer within 5 ms')]));
    expect(outcome).toMatchObject({ resultName: 'AdapterApiClientFailed', kind: 'ERP_UNREACHABLE', problems: [{ path: 'calls.article', message: 'no answer within 5 ms' }] }); // the target stays in the log
  });

  it('a one-element JSONata result still answers a list on list routes; nothing answers []', async () => {
    const list = `  GetWorkOrders:\n    calls: [{ name: o, method: GET, path: /o }]\n    output: 'calls.o.body.{ "number": n, "dueDate": "2026-01-01T00:00:00Z", "requests": [] }'\n`;
    expect(await run(list, 'GetWorkOrders', {}, fakeHttp([{ body: [{ n: 'A' }] }]))).toMatchObject({ data: [{ number: 'A' }] });
    expect(await run(list, 'GetWorkOrders', {}, fakeHttp([{ body: [] }]))).toMatchObject({ resultName: 'Succeed', data: [] });
  });

  it('output that breaks the contract is WorkOrderInvalid on the list routes, with the path', async () => {
    const bad = `  GetWorkOrders:\n    calls: [{ name: o, method: GET, path: /o }]\n    output: '[calls.o.body.{ "number": n, "requests": [], "dueDate": due }]'\n`;
    const outcome = await run(bad, 'GetWorkOrders', {}, fakeHttp([{ body: [{ n: 'A' }] }]));
    expect(outcome).toMatchObject({ resultName: 'WorkOrderInvalid', kind: 'OUTPUT_INVALID', problems: [{ path: 'data/0/dueDate', message: 'is required' }] });
  });

  it('a transform that throws is OperationFailed with the reason and the place in the file', async () => {
    const throwing = `  GetItem:\n    output: "$error('boom')"\n`;
    const outcome = await run(throwing, 'GetItem', { number: 'A' }, fakeHttp([]));
    expect(outcome).toMatchObject({ resultName: 'OperationFailed', kind: 'TRANSFORM_FAILED' });
    expect(outcome.problems?.[0].message).toMatch(/boom.*t\.yaml:\d+:\d+/);
  });

  it('static, acknowledge and unmapped routes answer without calling anything', async () => {
    const http = fakeHttp([]);
    expect(await run(`  GetExternalIndexableValueLabel:\n    static: { label: Order }\n`, 'GetExternalIndexableValueLabel', {}, http)).toEqual({ resultName: 'Success', data: { label: 'Order' } });
    expect(await run(`  CancelPutWallItem:\n    acknowledge: true\n`, 'CancelPutWallItem', {}, http)).toEqual({ resultName: 'Succeed' });
    expect(await run(`  CancelPutWallItem:\n    acknowledge: true\n`, 'GetItem', {}, http)).toEqual({ resultName: 'AdapterNotDefined' });
    expect(await run(`  CancelPutWallItem:\n    acknowledge: true\n`, 'GetExportColumns', {}, http)).toEqual({ resultName: 'Success', data: [] });
    expect(http.sent).toHaveLength(0);
  });
});

describe('contract check messages', () => {
  it('explain the JSONata one-element surprise when a list is expected', async () => {
    const single = `  GetWorkOrders:\n    output: '[{ "number": "A", "dueDate": "2026-01-01T00:00:00Z", "requests": {"itemNumber": "x", "requestedAmount": 1} }]'\n`;
    const outcome = await run(single, 'GetWorkOrders', {}, fakeHttp([]));
    expect(outcome).toMatchObject({ resultName: 'WorkOrderInvalid', problems: [{ path: 'data/0/requests', message: expect.stringMatching(/must be a list.*wrap the expression in \[ \]/) }] });
  });
});
