import type { JournalFilter, JournalSummary } from './store';

/**
 * The filters of `GET /requests` as query parameters, read by the admin listener and written by
 * `adapter-engine requests`: one spelling for both.
 */
export const JOURNAL_QUERY = {
  mapping: 'mapping name',
  operation: 'operation id, e.g. GetWorkOrderByCode',
  result: 'result name, e.g. WorkOrderDoesNotExist',
  outcome: '"success" or "failure"',
  contains: 'text the request contains (path, query, body or trace id): a work order or item number, a trace id from an ERP log',
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

/** A summary row as SQLite and PostgreSQL return it, and the filter as SQL: one spelling for both stores. */
/** The summary columns both stores select. */
export const SUMMARY = 'id, request_id, at, mapping, operation, method, path, result, success, duration_ms';

export interface SummaryRow {
  id: string; request_id: string; at: number | string; mapping: string; operation: string; method: string; path: string;
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  result: string; success: number | boolean; duration_ms: number;
}

export function summaryFromRow(row: SummaryRow): JournalSummary {
  return {
    id: row.id, requestId: row.request_id, at: Number(row.at), mapping: row.mapping, operation: row.operation, method: row.method,
    path: row.path, result: row.result, success: row.success === true || row.success === 1, durationMs: Number(row.duration_ms),
  };
}

/** The WHERE clause of a filter and its parameters, in the database's placeholders and truth values. */
export function whereOf(filter: JournalFilter, placeholder: (index: number) => string, truth: (value: boolean) => unknown): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', placeholder(params.length)));
  };
  if (filter.mapping !== undefined) add('mapping = ?', filter.mapping);
  if (filter.operation !== undefined) add('operation = ?', filter.operation);
  if (filter.result !== undefined) add('result = ?', filter.result);
  if (filter.success !== undefined) add('success = ?', truth(filter.success));
  if (filter.from !== undefined) add('at >= ?', filter.from);
  if (filter.to !== undefined) add('at <= ?', filter.to);
  if (filter.contains !== undefined) add(`request_text LIKE ? ESCAPE '\\'`, `%${filter.contains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return { sql: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
}
