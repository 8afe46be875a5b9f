import { describe, expect, it } from 'vitest';
import { findRoute, type RouteSpec } from '../contract/routes';
import { createSchemaRegistry } from '../contract/schema-registry';
import { mappingFromText } from '../../test/support/engine';
import { noMasking } from '../mapping/mask';
import { createAnsweringClient, type RecordedAnswers } from './answers';
import { replay, type ReplayCase } from './replay';
import { casesFromEntries } from './replay-sources';
import { runCase } from './run-case';

/**
 * One recorded request through two mappings on the real engine: what each kind of change is reported as.
 * The mappings differ in one place each; the recorded answers are those a journal or a test gives.
 */
const BASE = `version: 1
name: acme
system: { baseUrl: "http://erp.test/api" }
operations:
  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    outcomes:
      - when: response.body.state = 'BLOCKED'
        result: WorkOrderDoesNotExist
        message: "'blocked'"
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "description": calls.order.body.text, "requests": [] }'
  AttachWorkOrder:
    calls:
      - name: attach
        method: POST
        path: /attachments
        body: '{ "docNo": input.workOrderNumber, "container": input.containerCode }'
`;
const schemas = createSchemaRegistry();
const route = (id: string) => findRoute(id) as RouteSpec;

function lookup(answers: RecordedAnswers, input: unknown = { Code: 'SO-1' }): ReplayCase {
  return { source: 'request r-1', route: route('GetWorkOrderByCode'), input, answers, storedEvent: false };
}

async function compare(changedText: string, replayCase: ReplayCase) {
  return replay(mappingFromText(BASE), mappingFromText(changedText), replayCase, schemas);
}

describe('replay through two mappings', () => {
  const open = { order: { body: { no: 'SO-1', text: 'Weekly restock', state: 'OPEN' } } };

  it('the same mapping gives the same answer and the same calls', async () => {
    const result = await compare(BASE, lookup(open));
    expect(result).toMatchObject({ verdict: 'same', request: 'GET /WorkOrders/Code?Code=SO-1', fields: [], calls: [], old: { result: 'Succeed' } });
  });

  it('a changed output names each changed field, old and new', async () => {
    const result = await compare(BASE.replace('"description": calls.order.body.text', '"description": $uppercase(calls.order.body.text)'), lookup(open));
    expect(result.verdict).toBe('different');
    expect(result.fields).toEqual([{ path: '$.data.description', old: 'Weekly restock', new: 'WEEKLY RESTOCK' }]);
  });

  it('an outcome rule that now refuses the order is newly failing; the reverse newly succeeding', async () => {
    const refuses = BASE.replace("response.body.state = 'BLOCKED'", "response.body.state = 'OPEN'");
    const failing = await compare(refuses, lookup(open));
    expect(failing).toMatchObject({ verdict: 'newly failing', old: { result: 'Succeed', success: true }, new: { result: 'WorkOrderDoesNotExist', success: false } });
    expect(failing.fields).toEqual(expect.arrayContaining([{ path: '$.result', old: 1, new: 2 }, { path: '$.externalMessage', old: null, new: 'blocked' }]));
    const blocked = { order: { body: { no: 'SO-1', text: 'x', state: 'BLOCKED' } } };
    expect((await compare(BASE.replace("response.body.state = 'BLOCKED'", "response.body.state = 'NEVER'"), lookup(blocked))).verdict).toBe('newly succeeding');
  });

  it('a changed request line or body of an ERP call is reported even when the answer stays the same', async () => {
    const attach: ReplayCase = { source: 'request r-2', route: route('AttachWorkOrder'), input: { workOrderNumber: 'SO-1', containerCode: 'C-7' }, answers: { attach: { status: 201, body: {} } }, storedEvent: false };
    const result = await compare(BASE.replace('path: /attachments', 'path: /v2/attachments').replace('"container": input.containerCode', '"box": input.containerCode'), attach);
    expect(result.verdict).toBe('different');
    expect(result.fields).toEqual([]);
    expect(result.calls).toEqual([
      { call: 'attach', change: 'request line', old: 'POST /attachments', new: 'POST /v2/attachments' },
      { call: 'attach', change: 'body', fields: [{ path: '$.container', old: 'C-7' }, { path: '$.box', new: 'C-7' }] },
    ]);
  });

  it('a new call without a recorded answer is unrecorded, named once, never answered by a guess', async () => {
    const extra = BASE.replace('        path: /orders/{input.Code}\n', '        path: /orders/{input.Code}\n      - name: lines\n        method: GET\n        path: /orders/{input.Code}/lines\n        retry: { attempts: 1 }\n');
    const result = await compare(extra, lookup(open));
    expect(result).toMatchObject({ verdict: 'unrecorded', old: { unrecorded: [] }, new: { unrecorded: ['lines'] } });
    expect(result.calls).toEqual([{ call: 'lines', change: 'new call', request: 'GET /orders/SO-1/lines' }]);
  });

  it('a changed baseUrl moves every call: shown whole', async () => {
    const result = await compare(BASE.replace('http://erp.test/api', 'http://erp.test/api/v2'), lookup(open));
    expect(result.calls).toEqual([{ call: 'order', change: 'request line', old: 'GET http://erp.test/api/orders/SO-1', new: 'GET http://erp.test/api/v2/orders/SO-1' }]);
  });

  it('an event stored in the outbox replays its delivery on the stand-in answer: a dropped call is named', async () => {
    const outbox = BASE.replace('  AttachWorkOrder:\n', '  AttachWorkOrder:\n    delivery: outbox\n    outbox: { orderingKey: input.workOrderNumber }\n');
    const stored: ReplayCase = { source: 'request r-3', route: route('AttachWorkOrder'), input: { workOrderNumber: 'SO-1', containerCode: 'C-7' }, answers: {}, storedEvent: true };
    const same = await replay(mappingFromText(outbox), mappingFromText(outbox), stored, schemas);
    expect(same).toMatchObject({ verdict: 'same', old: { result: 'Success', unrecorded: [] } });
    const unmapped = outbox.replace(/ {2}AttachWorkOrder:[\s\S]*$/, '');
    const dropped = await replay(mappingFromText(outbox), mappingFromText(unmapped), stored, schemas);
    expect(dropped.calls).toEqual([{ call: 'attach', change: 'dropped call', request: 'POST /attachments' }]);
  });

  it('a request the ERP failed on every attempt replays that failure on every retry, not as unrecorded', async () => {
    const mapping = mappingFromText(BASE.replace('system: { baseUrl: "http://erp.test/api" }', 'system: { baseUrl: "http://erp.test/api", retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }'));
    for (const failure of [{ error: 'TIMEOUT' }, { status: 503, body: null }] as const) {
      // The journal entry of a run as the server makes it: two attempts, one step that says so.
      const live = await runCase(mapping, route('GetWorkOrderByCode'), { Code: 'SO-1' }, createAnsweringClient({ answers: { order: [failure, failure] } }), noMasking, { schemas });
      const { cases } = casesFromEntries([live.entry as NonNullable<typeof live.entry>]);
      expect(cases[0].answers).toEqual({ order: [failure, failure] });
      const result = await replay(mapping, mapping, cases[0] as ReplayCase, schemas);
      expect(result, JSON.stringify(failure)).toMatchObject({ verdict: 'same', old: { success: false, unrecorded: [] } });
    }
  });
});
