import type { JournalFilter } from './store';

/**
 * The filters of `GET /requests` as query parameters, read by the admin listener and written by
 * `adapter-engine requests`: one spelling for both.
 */
export const JOURNAL_QUERY = {
  mapping: 'mapping name',
  operation: 'operation id, e.g. GetWorkOrderByCode',
  result: 'result name, e.g. WorkOrderDoesNotExist',
  outcome: '"success" or "failure"',
  contains: 'text the request contains (path, query or body): a work order or item number',
  from: 'earliest time (ISO 8601, e.g. 2026-11-23T10:30:00Z)',
  to: 'latest time (ISO 8601)',
  limit: 'how many, newest first (default 50, at most 1000)',
} as const;

export type JournalQuery = Partial<Record<keyof typeof JOURNAL_QUERY, string>>;

function time(text: string, name: string): number | string {
  const at = Date.parse(text);
  return Number.isNaN(at) ? `${name} must be a time in ISO 8601 (2026-11-23T10:30:00Z), got "${text}"` : at;
}

/** The filter a query asks for, or what is wrong with it. */
export function filterFromQuery(query: Readonly<Record<string, unknown>>): { filter: JournalFilter } | { error: string } {
  const unknown = Object.keys(query).filter((name) => !(name in JOURNAL_QUERY));
  if (unknown.length > 0) return { error: `unknown filter ${unknown.join(', ')}; the filters are ${Object.keys(JOURNAL_QUERY).join(', ')}` };
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string' || value === '') return { error: `give ${name} once, with a value` };
    text[name] = value;
  }
  const { mapping, operation, result, outcome, contains } = text;
  if (outcome !== undefined && outcome !== 'success' && outcome !== 'failure') return { error: `outcome must be "success" or "failure", got "${outcome}"` };
  const from = text.from === undefined ? undefined : time(text.from, 'from');
  const to = text.to === undefined ? undefined : time(text.to, 'to');
  if (typeof from === 'string') return { error: from };
  if (typeof to === 'string') return { error: to };
  const limit = text.limit === undefined ? undefined : Number(text.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return { error: `limit must be a whole number above 0, got "${text.limit}"` };
  return { filter: { mapping, operation, result, success: outcome === undefined ? undefined : outcome === 'success', contains, from, to, limit } };
}
