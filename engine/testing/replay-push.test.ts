import { describe, expect, it } from 'vitest';
import { createSchemaRegistry } from '../contract/schema-registry';
import { mappingFromText } from '../../test/support/engine';
import type { JournalEntry } from '../journal/journal-entry';
import { createAnsweringClient } from './answers';
import { replayPush, type PushReplayCase } from './replay-push';
import { casesFromEntries } from './replay-sources';
import { maskerOf, runPushCase } from './run-case';

/**
 * One recorded push through two mappings on the real engine (inline outbox): the ERP's answer and the
 * platform calls of the events it stores, each kind of change as `diff` reports it. The answering client
 * has no live side: a platform call gets a recorded answer or the "not sent" stand-in, never the network.
 */
const BASE = `version: 1
name: acme
system: { baseUrl: "http://127.0.0.1:9/erp" }
operations: {}
platform: { baseUrl: "http://127.0.0.1:9/platform" }
push:
  Orders:
    auth: { type: apiKey, keys: ["\${ERP_PUSH_KEY}"] }
    schema: { type: object, required: [batchId, orders] }
    rules:
      - expect: $count(input.orders) > 0
        message: "batch {input.batchId}: no orders"
    idempotencyKey: input.batchId
    records: input.orders
    transform: '{ "number": record.no, "quantity": record.qty }'
    calls:
      - name: create
        method: POST
        path: /work-orders
        body: input
`;
const schemas = createSchemaRegistry();
const load = (text: string) => mappingFromText(text, { ERP_PUSH_KEY: 'k-1' });
const pushed = { batchId: 'B-1', orders: [{ no: 'SO-1', qty: 2 }, { no: 'SO-2', qty: 5 }] };

function orders(input: unknown = pushed): PushReplayCase {
  return { source: 'request r-1', push: 'Orders', input, answers: {} };
}

async function compare(changedText: string, replayCase: PushReplayCase = orders()) {
  return replayPush(load(BASE), load(changedText), replayCase, schemas);
}

describe('replay of a push through two mappings', () => {
  it('the same mapping: the same answer and the same platform calls, none sent', async () => {
    const result = await compare(BASE);
    expect(result).toMatchObject({ operation: 'push/Orders', request: 'POST /push/Orders', verdict: 'same', fields: [], calls: [], old: { result: 'Accepted', success: true } });
  });

  it('a changed transform names each changed field of each event\'s platform call, old and new', async () => {
    const result = await compare(BASE.replace('"quantity": record.qty', '"quantity": record.qty * 10'));
    expect(result.verdict).toBe('different');
    expect(result.fields).toEqual([]);
    expect(result.calls).toEqual([
      { call: 'create (1)', change: 'body', fields: [{ path: '$.quantity', old: 2, new: 20 }] },
      { call: 'create (2)', change: 'body', fields: [{ path: '$.quantity', old: 5, new: 50 }] },
    ]);
  });

  it('records read differently: a new event is a new platform call, a dropped one no longer made', async () => {
    const more = await compare(BASE.replace('records: input.orders', 'records: $append(input.orders, input.orders)'));
    expect(more.calls.filter((call) => call.change === 'new call')).toEqual([
      { call: 'create (3)', change: 'new call', request: 'POST /work-orders' },
      { call: 'create (4)', change: 'new call', request: 'POST /work-orders' },
    ]);
    const fewer = await compare(BASE.replace('records: input.orders', 'records: input.orders[0]'));
    expect(fewer.calls).toEqual([{ call: 'create (2)', change: 'dropped call', request: 'POST /work-orders' }]);
  });

  it('a check that now refuses the push is newly failing, with the ERP\'s answer field by field; the reverse newly succeeding', async () => {
    const strict = BASE.replace('required: [batchId, orders]', 'required: [batchId, orders, site]');
    const failing = await compare(strict);
    expect(failing).toMatchObject({ verdict: 'newly failing', old: { result: 'Accepted', success: true }, new: { result: 'Invalid', success: false } });
    expect(failing.fields).toEqual([
      { path: '$.status', old: 202, new: 400 },
      { path: '$.body.duplicate', old: false },
      { path: '$.body.error', new: 'the push is not valid: 1 problem' },
      { path: '$.body.problems', new: [{ path: '/site', message: 'is required' }] },
    ]);
    expect(failing.calls.map((call) => call.change)).toEqual(['dropped call', 'dropped call']);
    const empty = orders({ batchId: 'B-2', orders: [] });
    expect((await compare(BASE.replace('$count(input.orders) > 0', '$exists(input.batchId)'), empty)).verdict).toBe('newly succeeding');
    const reworded = await compare(BASE.replace('no orders"', 'nothing to send"'), empty);
    expect(reworded).toMatchObject({ verdict: 'different', fields: [{ path: '$.body.problems[0].message', old: 'batch B-2: no orders', new: 'batch B-2: nothing to send' }] });
  });

  it('a journaled push replays from its body; one whose body the journal cut or could not read is left out with that reason', async () => {
    const mapping = load(BASE);
    const live = await runPushCase(mapping, 'Orders', pushed, createAnsweringClient({ notSent: true }), maskerOf(mapping), { schemas });
    expect(live.status).toBe(202);
    const entry: JournalEntry = {
      id: 'r-1', requestId: 'r-1', at: '2026-11-26T00:00:00.000Z', mapping: 'acme', file: 'acme.yaml', operation: 'push/Orders', route: 'POST /push/Orders', mode: 'push',
      request: { method: 'POST', path: '/push/Orders', body: pushed }, steps: live.steps, rulesMatched: [], result: live.result, success: true, answer: { status: live.status, body: live.body }, durationMs: 1,
    };
    const cut = { ...entry, id: 'r-2', request: { ...entry.request, body: { truncated: 'the body is 70000 bytes; the first 65536 are kept', start: '{"batchId":"B-9","orders":[' } } };
    const unread = { ...entry, id: 'r-3', request: { method: 'POST', path: '/push/Orders' } };
    const { cases, leftOut } = casesFromEntries([entry, cut, unread]);
    expect(cases).toEqual([{ source: 'request r-1', at: entry.at, push: 'Orders', input: pushed, answers: {} }]);
    expect(leftOut).toEqual([
      { source: 'request r-2', reason: 'a push whose body the journal kept only in part (larger than it keeps): it cannot be replayed' },
      { source: 'request r-3', reason: 'a push whose body was not read (not JSON, or not readable): nothing to replay' },
    ]);
    expect(await replayPush(mapping, mapping, cases[0] as PushReplayCase, schemas)).toMatchObject({ verdict: 'same', at: entry.at });
  });
});
