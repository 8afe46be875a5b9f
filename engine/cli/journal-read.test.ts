import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JournalEntry } from '../journal/journal-entry';
import { listLimit, matchesFilter, type JournalSummary } from '../journal/store';
import { createAdminApp } from '../server/admin';
import { allEntries } from './journal-read';

/**
 * `requests export --all` and `diff --admin` read every matching entry from a real admin listener, which
 * lists at most 1000 at once: page after page, each from where the last ended, without losing or
 * repeating the entries of the millisecond a page ends in.
 */
const TOKEN = 'journal-read-token';
const BASE = Date.parse('2026-11-25T10:00:00Z');
// Three requests a millisecond, so that pages end inside a millisecond.
const summaries: JournalSummary[] = Array.from({ length: 2500 }, (_, i) => ({
  id: `e-${i}`, requestId: `r-${i}`, at: BASE + Math.floor(i / 3), mapping: 'acme', operation: i % 2 === 0 ? 'GetItem' : 'GetWorkOrderByCode',
  method: 'GET', path: `/Items/A-${i}`, result: 'Succeed', success: true, durationMs: 1,
}));
const byId = new Map(summaries.map((summary) => [summary.id, { ...summary, at: new Date(summary.at).toISOString(), steps: [] } as unknown as JournalEntry]));

let server: http.Server;
let admin: string;

beforeAll(async () => {
  const app = createAdminApp({
    ready: async () => ({ ready: true }),
    metrics: async () => ({ contentType: 'text/plain', text: '' }),
    openapi: () => ({}),
    // As the stores list them: newest first, the later of one millisecond first.
    requests: async (filter) => summaries.filter((summary) => matchesFilter(summary, filter, () => summary.path)).sort((a, b) => b.at - a.at || Number(b.id.slice(2)) - Number(a.id.slice(2))).slice(0, listLimit(filter)),
    request: async (id) => byId.get(id),
  }, { current: () => [TOKEN], from: 'ADMIN_TOKENS' });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  admin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  vi.stubEnv('ADMIN_TOKEN', TOKEN);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((resolve) => server.close(resolve));
});

describe('every journal entry the filters match', () => {
  it('reads all 2500 over three pages, each once, oldest first', async () => {
    const entries = await allEntries({ admin }, {});
    expect(entries).toHaveLength(2500);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(2500);
    const times = entries.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('passes the filters on, and --limit keeps the newest that many', async () => {
    const items = await allEntries({ admin }, { operation: 'GetItem', from: new Date(BASE + 100).toISOString() });
    expect(items.map((entry) => entry.operation)).toEqual(Array(1250 - 150).fill('GetItem'));
    const newest = await allEntries({ admin }, { limit: '4' });
    expect(newest.map((entry) => entry.id)).toEqual(['e-2496', 'e-2497', 'e-2498', 'e-2499']);
  });
});
