import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/core/engine';
import { createJournal } from '../../engine/journal/journal';
import { openPostgresJournal } from '../../engine/journal/postgres-journal';
import { openPostgres } from '../../engine/postgres-open';
import { openSqliteJournal } from '../../engine/journal/sqlite-journal';
import type { JournalStore } from '../../engine/journal/store';
import { head, mappingFromText } from '../support/engine';
import { json, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';
import { describeWithPostgres } from '../support/postgres';

/**
 * The journal in the state store, SQLite and PostgreSQL alike: the engine's entries reach it masked,
 * each mapping keeps its newest N, the filters run in SQL, and a journal opened again (a restart, another
 * worker or replica) reads what an earlier one wrote.
 */
const SECRET = 'tok-1a2b3c4d5e6f';
let erp: MisbehavingErp;
beforeAll(async () => {
  erp = await startMisbehavingErp({ basePath: '/api' });
  erp.onAny((request) => json({ no: request.url.split('/').pop(), seenWith: SECRET }));
});
afterAll(() => erp.close());

const mapping = (name: string) => mappingFromText(head(erp.url, 'auth: { type: bearer, token: "${ERP_TOKEN}" }').replace('name: connectivity-test', `name: ${name}`) + `  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`, { ERP_TOKEN: SECRET });

function describeJournalStore(kind: string, open: () => Promise<JournalStore>, cleanup: () => Promise<void>): void {
  describe(`request journal in ${kind}`, () => {
    afterEach(cleanup);

    it('keeps the newest N per mapping, masked, across a reopening, with the filters', async () => {
      const a = mapping('a');
      const b = mapping('b');
      const engine = createEngine({ mappings: [a, b], journal: createJournal({ size: 3, store: await open() }) });
      const ids: string[] = [];
      try {
        for (const code of ['4701', '4702', '4703', '4704']) ids.push((await engine.handle({ method: 'GET', path: '/a/WorkOrders/Code', query: { Code: code } })).entry!().id);
        await engine.handle({ method: 'GET', path: '/b/WorkOrders/Code', query: { Code: '4799' } });
      } finally {
        await engine.close();
      }
      // A new journal on the same store: nothing in its memory, everything from the store.
      const again = createJournal({ size: 3, store: await open() });
      try {
        expect((await again.list({ mapping: 'a' })).map((s) => s.id)).toEqual(ids.slice(1).reverse());
        expect((await again.list({})).map((s) => s.mapping)).toEqual(['b', 'a', 'a', 'a']);
        expect((await again.list({ contains: '4703' })).map((s) => s.path)).toEqual(['/a/WorkOrders/Code?Code=4703']);
        expect(await again.list({ success: false })).toEqual([]);
        expect((await again.list({ success: true, limit: 2 })).length).toBe(2);
        expect(await again.list({ result: 'WorkOrderDoesNotExist' })).toEqual([]);
        expect(await again.list({ from: Date.now() + 60_000 })).toEqual([]);
        expect(await again.get(ids[0])).toBeUndefined();
        const entry = await again.get(ids[3]);
        expect(entry).toMatchObject({ id: ids[3], mapping: 'a', result: 'Succeed', request: { query: { Code: '4704' } }, envelope: { isResultSuccess: true, data: { number: '4704' } } });
        expect(JSON.stringify(entry)).toContain('"seenWith":"***"');
        expect(JSON.stringify(entry)).not.toContain(SECRET);
      } finally {
        await again.close();
      }
    });
  });
}

let dir: string | undefined;
describeJournalStore('SQLite', async () => {
  dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'journal-'));
  return openSqliteJournal(dir);
}, async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describeWithPostgres('request journal on PostgreSQL', (server) => {
  let schema: string | undefined;
  let count = 0;
  describeJournalStore('PostgreSQL', async () => {
    schema ??= `journal_${process.pid}_${(count += 1)}`;
    return openPostgresJournal(await openPostgres(server().url), { schema });
  }, async () => {
    schema = undefined;
  });
});
