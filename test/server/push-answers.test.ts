import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import { startRecordingErp } from '../cli/cli-process';
import { startEngine } from '../support/engine';

/**
 * What a push is answered when it is not the push's fault or not a push at all (issue 31): a body sent
 * as text/plain is 415, not a signature mismatch; the engine's own time limit stopping a push's
 * expression is a retryable 503, not a 400 that tells the ERP never to send it again.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET = 'hmac-secret-1';
const KEY = 'push-key-1';

const MAPPING = (platformUrl: string) => `version: 1
name: push-answers
system:
  baseUrl: http://127.0.0.1:9/erp
operations: {}
limits: { expressionTimeoutMs: 100 }
platform:
  baseUrl: ${platformUrl}
push:
  StockChange:
    auth: { type: hmac, secrets: ["\${ERP_PUSH_SECRET}"], prefix: "sha256=" }
    schema: { type: object, required: [changeId] }
    idempotencyKey: input.changeId
    calls:
      - name: stock
        method: POST
        path: /stock
        body: input
  Orders:
    auth: { type: apiKey, keys: ["\${ERP_PUSH_KEY}"] }
    schema: { type: object, required: [batchId, orders] }
    idempotencyKey: input.batchId
    records: input.orders
    # Sorting with a comparator is slow: a large push runs into the 100 ms time limit.
    transform: '$count($sort(record.lines, function($a, $b) { $a > $b }))'
    calls:
      - name: create
        method: POST
        path: /orders
        body: input
  Checked:
    auth: { type: apiKey, keys: ["\${ERP_PUSH_KEY}"] }
    rules:
      - expect: $count($sort(input.lines, function($a, $b) { $a > $b })) > 0
        message: lines are needed
    idempotencyKey: input.batchId
    calls:
      - name: create
        method: POST
        path: /orders
        body: input
`;

async function setUp() {
  const platform = await startRecordingErp({});
  cleanups.push(platform.close);
  const store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'push-answers-')));
  cleanups.push(() => store.close());
  const engine = await startEngine(MAPPING(platform.url), { env: { ERP_PUSH_SECRET: SECRET, ERP_PUSH_KEY: KEY }, outbox: store });
  cleanups.push(engine.close);
  const push = async (name: string, body: string, headers: Record<string, string>) => {
    const response = await fetch(`${engine.url}/push/${name}`, { method: 'POST', headers, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, retryAfter: response.headers.get('retry-after') };
  };
  return { store, push };
}

function signature(body: string): Record<string, string> {
  const at = Math.floor(Date.now() / 1000);
  return { 'x-timestamp': String(at), 'x-signature': `sha256=${createHmac('sha256', SECRET).update(`${at}.${body}`).digest('hex')}` };
}

describe('push answers', () => {
  it('a signed push sent as text/plain is 415 (its body was never read), and is stored when sent as JSON', async () => {
    const { store, push } = await setUp();
    const body = JSON.stringify({ changeId: 'C-1' });
    const plain = await push('StockChange', body, { 'content-type': 'text/plain', ...signature(body) });
    expect(plain.status).toBe(415);
    expect(plain.body.error).toContain('must be JSON');
    expect(await store.list({})).toEqual([]);
    expect((await push('StockChange', body, { 'content-type': 'application/json', ...signature(body) })).status).toBe(202);
  });

  it('with header credentials a text/plain push is checked for them first: 401 without, 415 with', async () => {
    const { push } = await setUp();
    const body = JSON.stringify({ batchId: 'B-1', orders: [] });
    expect((await push('Orders', body, { 'content-type': 'text/plain' })).status).toBe(401);
    expect((await push('Orders', body, { 'content-type': 'text/plain', 'x-api-key': KEY })).status).toBe(415);
  });

  it('the time limit stopping a transform or a rule is 503 with Retry-After, nothing stored; a small push passes', async () => {
    const { store, push } = await setUp();
    const lines = Array.from({ length: 200_000 }, (_, index) => (index * 7919) % 1000);
    const headers = { 'content-type': 'application/json', 'x-api-key': KEY };
    const transform = await push('Orders', JSON.stringify({ batchId: 'B-1', orders: [{ lines }] }), headers);
    expect(transform.status).toBe(503);
    expect(transform.retryAfter).toBe('5');
    expect(transform.body.error).toContain('time limit; send it again');
    const rule = await push('Checked', JSON.stringify({ batchId: 'B-2', lines }), headers);
    expect(rule.status).toBe(503);
    expect(await store.list({})).toEqual([]);
    expect((await push('Orders', JSON.stringify({ batchId: 'B-3', orders: [{ lines: [3, 1, 2] }] }), headers)).status).toBe(202);
  }, 30_000);
});
