/**
 * A body nested far deeper than any contract body (issue 31): an extra field 50,000 levels deep passed
 * the schema and then failed to be stored ("Maximum call stack size exceeded"), answered OperationFailed,
 * which the platform resends for ever. It is invalid input, refused before the store, and so is such a push.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE_PUSH_ENV } from '../../examples/example-env';
import { MAX_BODY_DEPTH } from '../../engine/contract/body-depth';
import { BODY_LIMIT_BYTES } from '../../engine/journal/journal-entry';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import { startRecordingErp } from '../cli/cli-process';
import { loadExampleMapping, startEngine } from '../support/engine';
import { expectResult, problemsOf } from '../support/envelope';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const PLACEMENT = { workOrderNumber: 'SO-1001', itemNumber: 'A-100', completedAmount: 4, confirmedLocationName: 'PW-01-A1', userEmail: 'ann@example.com' };

/** JSON text of a value `levels` objects deep, written out (a built value this deep could not be stringified). */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
}

function withExtra(levels: number): string {
  return `${JSON.stringify(PLACEMENT).slice(0, -1)},"extra":${nested(levels)}}`;
}

async function setUp() {
  const erp = await startRecordingErp({});
  cleanups.push(erp.close);
  const store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'deep-bodies-')));
  cleanups.push(() => store.close());
  const engine = await startEngine(loadExampleMapping(erp.url), { outbox: store });
  cleanups.push(engine.close);
  return { engine, store };
}

describe('deeply nested bodies', () => {
  it('an event with an extra field nested 50,000 deep is InvalidInput naming the depth, and nothing is stored', async () => {
    const { engine, store } = await setUp();
    const reply = await engine.postRaw('/WorkOrders/ForPutWall', withExtra(50_000));
    expectResult(reply, 'ConfirmPutWallPlacement', 'InvalidInput', 5);
    expect(problemsOf(reply)).toEqual([{ path: 'body', message: `the request body is nested more than ${MAX_BODY_DEPTH} levels deep (objects and lists within each other); the engine accepts at most ${MAX_BODY_DEPTH}` }]);
    expect(await store.list({})).toEqual([]);
    // At the limit (the body itself is the first level) it is stored as any event.
    const deepest = await engine.postRaw('/WorkOrders/ForPutWall', withExtra(MAX_BODY_DEPTH - 1));
    expectResult(deepest, 'ConfirmPutWallPlacement', 'Succeed', 1);
    expect(await store.list({})).toHaveLength(1);
  });

  it('a push nested 50,000 deep is 400 naming the depth', async () => {
    const { engine, store } = await setUp();
    const body = `{"changeNo":1,"article":"A-1","available":1,"extra":${nested(50_000)}}`;
    const at = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', EXAMPLE_PUSH_ENV.ERP_PUSH_SECRET).update(`${at}.${body}`).digest('hex');
    const response = await fetch(`${engine.url}/push/StockChange`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-timestamp': String(at), 'x-signature': `sha256=${signature}` }, body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ problems: [{ path: 'body', message: expect.stringContaining(`the push is nested more than ${MAX_BODY_DEPTH} levels deep`) }] });
    expect(await store.list({})).toEqual([]);
  });

  it('a request refused for its depth (5,000 and 50,000 levels) is kept in the journal, its body cut', async () => {
    const { engine } = await setUp();
    for (const levels of [5_000, 50_000]) {
      const reply = await engine.postRaw('/WorkOrders/ForPutWall', withExtra(levels));
      expectResult(reply, 'ConfirmPutWallPlacement', 'InvalidInput', 5);
      const [summary] = await engine.engine.journal.list({});
      expect(summary).toMatchObject({ operation: 'ConfirmPutWallPlacement', result: 'InvalidInput', success: false });
      const entry = await engine.engine.journal.get(summary.id);
      const body = entry?.request.body as { truncated: string; start: string };
      expect(body.truncated).toBe(`nested more than ${MAX_BODY_DEPTH} levels deep; the first ${body.start.length} characters of its JSON are kept`);
      expect(body.start.startsWith(withExtra(levels).slice(0, 2000))).toBe(true);
      // As much as fits the limit as the entry writes it (a JSON string: each quote escaped, so about half here).
      const written = JSON.stringify(body.start).length - 2;
      expect(written).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
      expect(written).toBeGreaterThan(Math.min(BODY_LIMIT_BYTES, JSON.stringify(withExtra(levels)).length - 2) - 2);
    }
  });
});
