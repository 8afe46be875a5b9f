import pLimit from 'p-limit';
import type { JournalEntry } from '../journal/journal-entry';
import { JOURNAL_QUERY, type JournalQuery } from '../journal/query';
import type { JournalSummary } from '../journal/store';
import { fetchAdmin, type AdminOptions } from './admin-client';
import { usageError } from './usage';

/**
 * The request journal of a running server as the commands read it from its admin listener: the list of
 * `requests`, and every matching entry in full for `requests export --all` and `diff --admin`.
 */

export function errorOf(body: unknown): string {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : JSON.stringify(body);
}

/** Summaries matching the filters, newest first; a filter the server refuses is a usage error. */
export async function listRequests(options: AdminOptions, filters: JournalQuery): Promise<JournalSummary[]> {
  const query = new URLSearchParams();
  for (const name of Object.keys(JOURNAL_QUERY) as (keyof JournalQuery)[]) {
    const value = filters[name];
    if (value !== undefined) query.set(name, value);
  }
  const { status, body } = await fetchAdmin(options, `/requests${query.size > 0 ? `?${query}` : ''}`);
  if (status === 400) usageError(errorOf(body));
  if (status !== 200) throw new Error(`GET /requests answered ${status}: ${errorOf(body)}`);
  return (body as { requests: JournalSummary[] }).requests;
}

/** The most the admin listener lists at once. */
const PAGE = 1000;

/**
 * Every entry matching the filters, oldest first. Without --limit the list is read page by page, each
 * page ending where the last began (entries of that same millisecond come twice and are kept once).
 */
export async function allEntries(options: AdminOptions, filters: JournalQuery): Promise<JournalEntry[]> {
  const summaries = new Map<string, JournalSummary>();
  let to = filters.to;
  for (;;) {
    const page = await listRequests(options, { ...filters, to, limit: filters.limit ?? String(PAGE) });
    const before = summaries.size;
    for (const summary of page) summaries.set(summary.id, summary);
    if (filters.limit !== undefined || page.length < PAGE || summaries.size === before) break;
    to = new Date(page[page.length - 1].at).toISOString();
  }
  // A few at a time: the admin listener shares the server's event loop with the platform's requests.
  const limit = pLimit(4);
  const entries = await Promise.all([...summaries.values()].reverse().map((summary) => limit(async () => {
    const { status, body } = await fetchAdmin(options, `/requests/${encodeURIComponent(summary.id)}`);
    // Trimmed from the journal between the list and now: nothing left to read.
    if (status === 404) return undefined;
    if (status !== 200) throw new Error(`GET /requests/${summary.id} answered ${status}: ${errorOf(body)}`);
    return body as JournalEntry;
  })));
  return entries.filter((entry): entry is JournalEntry => entry !== undefined);
}
