import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startErp, type RunningErp } from '../../examples/erp';
import { isTruncated, type JournalEntry } from '../../engine/journal/journal-entry';
import { ADMIN_AUTH, EXAMPLE, startServe, stoppedAfterEach, tempDir, type Serving } from '../cli/cli-process';

/**
 * What docs/operations.md promises of the journal, on `serve` as `npm start` runs it (the example
 * mapping: its journal in memory and in SQLite in the state directory) against the example ERP with
 * 508 orders: the bodies of one request together within 128 KB as kept and as read back, each text
 * once, memory bounded by --journal-size, and the CPU budget that leaves successes out, never failures.
 */
const ENTRY_BODIES = 128 * 1024;
/** What an entry holds besides its bodies (steps' URLs and headers, the envelope's fields): a few KB. */
const ENTRY_REST = 8 * 1024;

let erp: RunningErp;
beforeAll(async () => {
  erp = await startErp({ port: 0, extraOrders: 500 });
});
afterAll(() => erp.close());

const { running } = stoppedAfterEach(afterEach);

async function served(extra: string[]): Promise<{ serving: Serving; stateDir: string }> {
  const stateDir = tempDir();
  const serving = await startServe(['--admin-port', '0', '--state-dir', stateDir, ...extra, EXAMPLE], { ERP_URL: erp.url });
  running.push(serving);
  return { serving, stateDir };
}

async function admin<T>(serving: Serving, pathAndQuery: string): Promise<T> {
  const response = await fetch(`${serving.adminUrl}${pathAndQuery}`, { headers: ADMIN_AUTH });
  expect(response.status).toBe(200);
  return await response.json() as T;
}

async function metric(serving: Serving, name: string): Promise<number> {
  const text = await (await fetch(`${serving.adminUrl}/metrics`, { headers: ADMIN_AUTH })).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  if (!line) throw new Error(`/metrics has no ${name}`);
  return Number(line.split(' ')[1]);
}

async function listAll(serving: Serving): Promise<void> {
  const answer = await fetch(`${serving.urls[0]}/WorkOrders`);
  expect(answer.status).toBe(200);
  const envelope = await answer.json() as { isResultSuccess: boolean; data: unknown[] };
  expect(envelope.isResultSuccess).toBe(true);
  expect(envelope.data.length).toBeGreaterThan(500);
}

/** Every body of an entry, where a reader finds it. */
function bodiesOf(entry: JournalEntry): unknown[] {
  return [entry.request.body, entry.envelope?.data, ...entry.steps.flatMap((step) => {
    if (step.step === 'request' || step.step === 'response') return [step.body];
    return step.step === 'output' ? [step.data] : [];
  })].filter((body) => body !== undefined);
}

/** A body as the entry's text holds it: a cut start as a JSON string, anything else as JSON. */
const writtenLength = (body: unknown) => (isTruncated(body) ? JSON.stringify(body.start).length - 2 : JSON.stringify(body).length);

describe('the request journal within its promise (serve)', () => {
  it('keeps the bodies of a 508-order list within 128 KB, each text once, in the store and read back', async () => {
    const { serving, stateDir } = await served(['--journal-max-cpu-share', '1']);
    await listAll(serving);
    const [summary] = (await admin<{ requests: { id: string; operation: string }[] }>(serving, '/requests')).requests;
    expect(summary.operation).toBe('GetWorkOrders');
    const entry = await admin<JournalEntry>(serving, `/requests/${summary.id}`);
    const bodies = bodiesOf(entry);
    expect(bodies.reduce((sum: number, body) => sum + writtenLength(body), 0)).toBeLessThanOrEqual(ENTRY_BODIES);
    // The answer's data and the output step's are one text: one holds its start, the other names it.
    const output = entry.steps.find((step) => step.step === 'output');
    expect(isTruncated(entry.envelope?.data)).toBe(true);
    expect(writtenLength(entry.envelope?.data)).toBeGreaterThan(64 * 1024 - 100);
    expect(output?.step === 'output' && output.data).toEqual({ truncated: 'the same text as envelope.data, kept there once', start: '' });
    const starts = bodies.flatMap((body) => (isTruncated(body) && body.start !== '' ? [body.start] : []));
    expect(new Set(starts).size).toBe(starts.length);
    // 293 KB read back before, with three 64 KB starts, two of them the same text.
    expect(JSON.stringify(entry).length).toBeLessThan(ENTRY_BODIES + ENTRY_REST);
    // The state store's row: the same bound for what is written to disk.
    await expect.poll(async () => (await metric(serving, 'adapter_journal_held_characters')), { timeout: 10_000 }).toBe(0);
    const db = new Database(path.join(stateDir, 'journal.sqlite'), { readonly: true });
    try {
      const row = db.prepare('SELECT length(entry) AS length FROM journal WHERE id = ?').get(summary.id) as { length: number };
      expect(row.length).toBeLessThan(ENTRY_BODIES + ENTRY_REST);
    } finally {
      db.close();
    }
  });

  it('holds in memory at most --journal-size entries per mapping, and none the state store holds', async () => {
    const { serving } = await served(['--journal-size', '3', '--journal-max-cpu-share', '1']);
    for (let i = 0; i < 8; i += 1) await listAll(serving);
    // Written to SQLite 200 ms after the answers: then memory holds none of their texts.
    await expect.poll(async () => (await metric(serving, 'adapter_journal_held_characters')), { timeout: 10_000 }).toBe(0);
    expect((await admin<{ requests: unknown[] }>(serving, '/requests')).requests).toHaveLength(3);
  });

  it('leaves out successes past its CPU budget, counted, and keeps every failure', async () => {
    const { serving } = await served(['--journal-max-cpu-share', '0']);
    await listAll(serving);
    const unknown = await (await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=SO-404404&StorageName=WH-MAIN`)).json() as { isResultSuccess: boolean };
    expect(unknown.isResultSuccess).toBe(false);
    await expect.poll(async () => (await admin<{ requests: { operation: string; success: boolean }[] }>(serving, '/requests')).requests, { timeout: 10_000 })
      .toEqual([expect.objectContaining({ operation: 'GetWorkOrderByCode', success: false })]);
    expect(await metric(serving, 'adapter_journal_not_kept_total')).toBe(1);
  });
});
