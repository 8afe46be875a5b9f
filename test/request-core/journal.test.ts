import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/core/engine';
import { createJournal } from '../../engine/journal/journal';
import { BODY_LIMIT_BYTES, capped, ENTRY_BODIES_LIMIT_BYTES, isTruncated } from '../../engine/journal/journal-entry';
import { openSqliteJournal } from '../../engine/journal/sqlite-journal';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { head, mappingFromText } from '../support/engine';
import { json, startMisbehavingErp, status, type MisbehavingErp } from '../support/misbehaving-erp';

/** The request journal as the engine keeps it: one entry per contract request, bounded, filtered, masked. */
const SECRET = 'tok-9f8e7d6c5b4a';
const operations = `  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    outcomes:
      - when: response.status = 404
        result: WorkOrderDoesNotExist
        message: "'Order ' & input.Code & ' is unknown'"
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`;

let erp: MisbehavingErp;
beforeAll(async () => {
  erp = await startMisbehavingErp({ basePath: '/api' });
  erp.on('GET /orders/4711', () => json({ no: '4711', note: `issued with ${SECRET}` }, { 'x-session': 'abc' }));
  erp.on('GET /orders/4712', () => status(404));
  erp.on('GET /orders/big', () => json({ no: 'big', blob: 'x'.repeat(BODY_LIMIT_BYTES + 10) }));
  erp.on('GET /lines/big', () => json({ no: 'big', blob: 'x'.repeat(BODY_LIMIT_BYTES + 10) }));
});
afterAll(() => erp.close());

function engineWith(size: number): { engine: Engine; mappingText: string } {
  const mappingText = head(erp.url, 'auth: { type: bearer, token: "${ERP_TOKEN}" }\nheaders: { X-Api-Key: "${ERP_TOKEN}" }') + operations;
  const mapping = mappingFromText(mappingText, { ERP_TOKEN: SECRET });
  return { engine: createEngine({ mappings: [mapping], journal: createJournal({ size }) }), mappingText };
}

const get = (engine: Engine, code: string) => engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: code } });

describe('request journal', () => {
  it('keeps each request with its calls, matched rules, envelope and duration, secrets masked', async () => {
    const { engine } = engineWith(10);
    try {
      const answer = await get(engine, '4712');
      const [summary] = await engine.journal.list({});
      expect(summary).toMatchObject({ id: answer.entry?.().id, requestId: answer.requestId, mapping: 'connectivity-test', operation: 'GetWorkOrderByCode', method: 'GET', path: '/WorkOrders/Code?Code=4712', result: 'WorkOrderDoesNotExist', success: false });
      const entry = await engine.journal.get(summary.id);
      expect(entry?.request).toMatchObject({ method: 'GET', path: '/WorkOrders/Code', query: { Code: '4712' } });
      expect(entry?.steps.map((step) => step.step)).toEqual(['request', 'response', 'rule']);
      expect(entry?.rulesMatched).toEqual([expect.objectContaining({ call: 'order', when: 'response.status = 404', result: 'WorkOrderDoesNotExist' })]);
      expect(entry?.envelope).toMatchObject({ isResultSuccess: false, externalMessage: 'Order 4712 is unknown' });
      expect(entry?.durationMs).toBeGreaterThan(0);

      await get(engine, '4711');
      const success = await engine.journal.get((await engine.journal.list({ contains: '4711' }))[0].id);
      expect(success?.envelope).toEqual({ isResultSuccess: true, result: 1, validationStatus: null, externalMessage: null, data: { number: '4711', dueDate: '2026-12-01T00:00:00Z', requests: [] } });
      const text = JSON.stringify(success);
      expect(text).not.toContain(SECRET);
      expect(text).toContain('issued with ***');
      expect(text).toContain('"X-Api-Key":"***"');
      expect(text).toContain('"x-session":"***"');
    } finally {
      await engine.close();
    }
  });

  it('keeps the last N per mapping; older entries leave, with their ids', async () => {
    const { engine } = engineWith(3);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await get(engine, '4711')).entry!().id);
      expect((await engine.journal.list({})).map((s) => s.id)).toEqual(ids.slice(2).reverse());
      expect(await engine.journal.get(ids[0])).toBeUndefined();
      expect(await engine.journal.get(ids[4])).toBeDefined();
    } finally {
      await engine.close();
    }
  });

  it('filters by operation, result, outcome, text in the request, time and count', async () => {
    const { engine } = engineWith(20);
    try {
      const before = Date.now();
      await get(engine, '4711');
      await get(engine, '4712');
      await engine.handle({ method: 'GET', path: '/Items/A-100' });
      const ids = async (filter: Parameters<Engine['journal']['list']>[0]) => (await engine.journal.list(filter)).map((s) => s.path);
      expect(await ids({ success: false })).toEqual(['/Items/A-100', '/WorkOrders/Code?Code=4712']);
      expect(await ids({ result: 'WorkOrderDoesNotExist' })).toEqual(['/WorkOrders/Code?Code=4712']);
      expect(await ids({ operation: 'GetItem' })).toEqual(['/Items/A-100']);
      expect(await ids({ contains: '4711' })).toEqual(['/WorkOrders/Code?Code=4711']);
      expect(await ids({ contains: 'A-100', success: false })).toEqual(['/Items/A-100']);
      expect(await ids({ limit: 1 })).toEqual(['/Items/A-100']);
      expect(await ids({ from: before - 60_000, to: before - 1 })).toEqual([]);
      expect(await ids({ mapping: 'other' })).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it('cuts a body at the limit with the start of its JSON, and keeps a small one as it is', () => {
    // The start is the longest beginning of the body's JSON whose written form (a JSON string, quotes
    // and backslashes escaped) fits the limit: the limit holds for what the entry's text holds.
    const startOf = (value: unknown) => {
      const cut = capped(value);
      expect(isTruncated(cut)).toBe(true);
      const { start } = cut as { start: string };
      const text = JSON.stringify(value);
      expect(text.startsWith(start)).toBe(true);
      expect(JSON.stringify(start).length - 2).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
      // One character more would not fit.
      expect(JSON.stringify(text.slice(0, start.length + 1)).length - 2).toBeGreaterThan(BODY_LIMIT_BYTES);
      return start;
    };
    const upload = { name: 'orders.csv', content: 'QUJD'.repeat(5_000_000), lines: [1, 2] };
    expect(startOf(upload).length).toBe(BODY_LIMIT_BYTES - 7); // the seven quotes before its content are written \"
    const many = Array.from({ length: 20_000 }, (_, i) => ({ no: `SO-${i}`, qty: i, open: i % 2 === 0, note: null }));
    startOf(many);
    const small = { lines: [1, 'two', null, { a: true }] };
    expect(capped(small)).toBe(small);
    // An ERP page (between the limit and four times it) is cut from JSON.stringify's text; a value JSON
    // cannot hold (undefined) keeps the writing of the rest, where it is null, not left out.
    const page = many.slice(0, 2000);
    expect(JSON.stringify(page).length).toBeGreaterThan(BODY_LIMIT_BYTES);
    const pageStart = startOf(page);
    const withUndefined = page.map((order) => ({ ...order, note: undefined }));
    expect(isTruncated(capped(withUndefined)) && (capped(withUndefined) as { start: string }).start).toBe(pageStart);
    // The first elements that fit are written in one call, the rest one by one from the first that JSON
    // cannot hold (here the 101st): where one way of writing ends and the other begins does not show.
    const seam = [...page.slice(0, 100), { ...page[100], note: undefined }, ...page.slice(101)];
    expect(isTruncated(capped(seam)) && (capped(seam) as { start: string }).start).toBe(pageStart);
  });

  it('cuts any shape of body exactly where its JSON text would be cut', () => {
    // The start is written element by element, small elements natively (journal-entry.ts jsonStart):
    // whatever the nesting, the text must be JSON.stringify's.
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 2 || pick < 0.3) return pick < 0.1 ? 'text "quoted" é\n'.repeat(Math.floor(random() * 40)) : pick < 0.2 ? Math.floor(random() * 1e9) / 7 : pick < 0.25 ? null : true;
      if (pick < 0.65) return Array.from({ length: Math.floor(random() * 10) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 8) }, (_, i) => [`key ${i} "${depth}"`, value(depth + 1)]));
    };
    let cut = 0;
    for (let round = 0; round < 30; round += 1) {
      const body = Array.from({ length: 60 }, () => value(0));
      const text = JSON.stringify(body);
      const kept = capped(body);
      // Lengths are measured roughly (a number counts 6 characters): a body a little over is kept whole.
      if (!isTruncated(kept)) continue;
      cut += 1;
      expect(text.startsWith(kept.start)).toBe(true);
      expect(JSON.stringify(kept.start).length - 2).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
      expect(JSON.stringify(text.slice(0, kept.start.length + 1)).length - 2).toBeGreaterThan(BODY_LIMIT_BYTES);
    }
    expect(cut).toBeGreaterThan(10);
  });

  it('cuts large bodies with a marker and keeps nothing with size 0', async () => {
    const { engine } = engineWith(5);
    try {
      const answer = await get(engine, 'big');
      expect(answer.envelope?.isResultSuccess).toBe(true);
      const entry = await engine.journal.get(answer.entry!().id);
      const response = entry?.steps.find((step) => step.step === 'response');
      expect(response?.step === 'response' && isTruncated(response.body)).toBe(true);
    } finally {
      await engine.close();
    }
    const off = engineWith(0).engine;
    try {
      expect((await get(off, '4711')).entry).toBeUndefined();
      expect(await off.journal.list({})).toEqual([]);
    } finally {
      await off.close();
    }
  });

  it('keeps at most ENTRY_BODIES_LIMIT_BYTES of bodies per request: the answer first, then the calls in order', async () => {
    // Six ERP pages of about 80 KB and an answer of about 90 KB: 7 × 64 KB were kept before.
    const pages = Array.from({ length: 6 }, (_, page) => Array.from({ length: 800 }, (_, i) => ({ no: `SO-${page}-${i}`, text: 'line of an order '.repeat(4) })));
    erp.on('GET /pages', (request) => json({ items: pages[Number(request.query.get('page'))], page: Number(request.query.get('page')), last: 5 }));
    const listing = `  GetWorkOrders:
    calls:
      - name: pages
        method: GET
        path: /pages
        paginate:
          style: page
          pageParam: page
          firstPage: 0
          items: response.body.items
          hasMore: response.body.page < response.body.last
          maxPages: 10
    output: 'calls.pages.items.{ "number": no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`;
    const engine = createEngine({ mappings: [mappingFromText(head(erp.url) + listing)], journal: createJournal({ size: 5 }) });
    try {
      const answer = await engine.handle({ method: 'GET', path: '/WorkOrders' });
      expect(answer.envelope?.isResultSuccess).toBe(true);
      const entry = (await engine.journal.get(answer.entry!().id))!;
      const bodies = entry.steps.flatMap((step) => (step.step === 'response' ? [step.body] : []));
      expect(bodies).toHaveLength(6);
      // The answer is kept first, cut at the per-body limit as written (its quotes escaped); the output
      // step's data is the same text, named, not written again.
      const written = (value: unknown) => (isTruncated(value) ? JSON.stringify(value.start).length - 2 : 0);
      expect(isTruncated(entry.envelope?.data)).toBe(true);
      expect(written(entry.envelope?.data)).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
      expect(written(entry.envelope?.data)).toBeGreaterThan(BODY_LIMIT_BYTES - 100);
      const output = entry.steps.find((step) => step.step === 'output');
      expect(output?.step === 'output' && output.data).toEqual({ truncated: 'the same text as envelope.data, kept there once', start: '' });
      // The first page gets the rest of the budget; the pages after it are named as not kept.
      expect(written(bodies[0])).toBe(Math.min(BODY_LIMIT_BYTES, ENTRY_BODIES_LIMIT_BYTES - written(entry.envelope?.data)));
      for (const later of bodies.slice(1)) expect(later).toEqual({ truncated: expect.stringContaining(`hold the ${ENTRY_BODIES_LIMIT_BYTES} characters of JSON the journal keeps per request`), start: '' });
      // Read back, the bodies together are within the limit (544 KB before the limit, 293 KB of a
      // 508-order list before each text was kept once and measured as written).
      expect(JSON.stringify(entry).length).toBeLessThan(ENTRY_BODIES_LIMIT_BYTES + 8 * 1024);
    } finally {
      await engine.close();
    }
  });
  it('keeps one copy of a text two calls were answered: the second names the first', async () => {
    const twice = `  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
      - name: lines
        method: GET
        path: /lines/{input.Code}
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`;
    const engine = createEngine({ mappings: [mappingFromText(head(erp.url) + twice)], journal: createJournal({ size: 5 }) });
    try {
      const answer = await get(engine, 'big');
      expect(answer.envelope?.isResultSuccess).toBe(true);
      const entry = (await engine.journal.get(answer.entry!().id))!;
      const responses = entry.steps.flatMap((step, index) => (step.step === 'response' ? [{ index, body: step.body }] : []));
      expect(responses).toHaveLength(2);
      // Two answers parsed apart, one text: kept at the first call, named at the second.
      expect(isTruncated(responses[0].body) && responses[0].body.start.length).toBeGreaterThan(BODY_LIMIT_BYTES - 100);
      expect(responses[1].body).toEqual({ truncated: expect.stringMatching(new RegExp(`^begins as steps\\[${responses[0].index}\\]\\.body does: its first \\d+ characters are kept there$`)), start: '' });
      expect(JSON.stringify(entry).length).toBeLessThan(BODY_LIMIT_BYTES + 8 * 1024);
    } finally {
      await engine.close();
    }
  });

  it('holds at most its size of entries in memory per mapping, and none once the state store has them', async () => {
    const size = 3;
    const engine = createEngine({ mappings: [mappingFromText(head(erp.url) + operations)], journal: createJournal({ size, maxCpuShare: 1 }) });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-held-'));
    const stored = createJournal({ size, store: openSqliteJournal(dir), maxCpuShare: 1 });
    const withStore = createEngine({ mappings: [mappingFromText(head(erp.url) + operations)], journal: stored });
    try {
      for (let i = 0; i < 10; i += 1) {
        await get(engine, 'big');
        await get(withStore, 'big');
      }
      // Each entry holds a cut start of about 64 KB: three of them, not ten.
      const held = engine.journal.stats().heldChars;
      expect(held).toBeGreaterThan(size * BODY_LIMIT_BYTES * 0.9);
      expect(held).toBeLessThanOrEqual(size * (ENTRY_BODIES_LIMIT_BYTES + 8 * 1024));
      await stored.flush();
      expect(stored.stats().heldChars).toBe(0);
      // Read from the store now, as whole as from memory.
      const [newest] = await stored.list({});
      const entry = await stored.get(newest.id);
      expect(entry?.steps.some((step) => step.step === 'response' && isTruncated(step.body))).toBe(true);
    } finally {
      await engine.close();
      await withStore.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps no success past a CPU budget of 0, and every failure', async () => {
    const journal = createJournal({ size: 5, maxCpuShare: 0 });
    const engine = createEngine({ mappings: [mappingFromText(head(erp.url) + operations)], journal });
    try {
      await get(engine, '4711');
      await get(engine, '4712');
      expect((await journal.list({})).map((summary) => summary.result)).toEqual(['WorkOrderDoesNotExist']);
      expect(journal.stats().notKept).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it('builds the entry of a success it does not keep only when asked, once, for what reads it after the answer', async () => {
    const journal = createJournal({ size: 5, maxCpuShare: 0 });
    const engine = createEngine({ mappings: [mappingFromText(head(erp.url) + operations)], journal });
    try {
      const answer = await get(engine, '4711');
      expect(journal.stats()).toEqual({ heldChars: 0, notKept: 1 });
      // A shadow candidate replays the ERP's answers from it: the request, its steps and its result.
      const entry = answer.entry?.();
      expect(entry).toMatchObject({ operation: 'GetWorkOrderByCode', result: 'Succeed', success: true, request: { query: { Code: '4711' } } });
      expect(entry?.steps.map((step) => step.step)).toEqual(['request', 'response', 'rule', 'output', 'check']);
      expect(answer.entry?.()).toBe(entry);
      expect(await journal.get(entry?.id ?? '')).toBeUndefined();
      expect(await journal.list({})).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});
