/**
 * Where the request journal is kept beyond one process's memory: the state store (SQLite in the state
 * directory, or PostgreSQL), so the journal outlives a restart and the workers or replicas of one server
 * are read together. The store knows journal rows, not mappings or traces: an entry is JSON text, already
 * masked, with the columns the filters need beside it. Each mapping keeps at most `keepPerMapping` rows.
 */

/** What a list of requests shows per request. */
export interface JournalSummary {
  /** The journal entry's id (unique); `requestId` may repeat (the platform chooses it). */
  readonly id: string;
  readonly requestId: string;
  /** Milliseconds since the epoch, when the request arrived. */
  readonly at: number;
  readonly mapping: string;
  readonly operation: string;
  readonly method: string;
  /** The path with its query, as the platform sent it (e.g. /WorkOrders/Code?Code=4711). */
  readonly path: string;
  readonly result: string;
  readonly success: boolean;
  readonly durationMs: number;
}

export interface JournalRecord extends JournalSummary {
  /** The request's path, query and body as JSON text: what a work order or item number is searched in. */
  readonly requestText: string;
  /** The whole entry as JSON text (masked). */
  readonly entry: string;
}

export interface JournalFilter {
  readonly mapping?: string;
  readonly operation?: string;
  readonly result?: string;
  readonly success?: boolean;
  /** Text the request (path, query or body) contains: a work order or item number. */
  readonly contains?: string;
  /** Milliseconds since the epoch, inclusive. */
  readonly from?: number;
  readonly to?: number;
  /** Newest first; default and most: see JOURNAL_LIST_LIMIT. */
  readonly limit?: number;
}

export const JOURNAL_LIST_LIMIT = { default: 50, most: 1000 } as const;

export interface JournalStore {
  readonly location: string;
  /** Stores the records and trims each of their mappings to its newest `keepPerMapping`. */
  append(records: readonly JournalRecord[], keepPerMapping: number): Promise<void>;
  /** Newest first. */
  list(filter: JournalFilter): Promise<JournalSummary[]>;
  get(id: string): Promise<JournalRecord | undefined>;
  close(): Promise<void>;
}

/** The limit a list runs with. */
export function listLimit(filter: JournalFilter): number {
  return Math.min(Math.max(1, filter.limit ?? JOURNAL_LIST_LIMIT.default), JOURNAL_LIST_LIMIT.most);
}

/** Whether a request matches the filter; `requestText` is asked only when the filter searches it. */
export function matchesFilter(summary: Pick<JournalSummary, 'mapping' | 'operation' | 'result' | 'success' | 'at'>, filter: JournalFilter, requestText: () => string): boolean {
  if (filter.mapping !== undefined && summary.mapping !== filter.mapping) return false;
  if (filter.operation !== undefined && summary.operation !== filter.operation) return false;
  if (filter.result !== undefined && summary.result !== filter.result) return false;
  if (filter.success !== undefined && summary.success !== filter.success) return false;
  if (filter.from !== undefined && summary.at < filter.from) return false;
  if (filter.to !== undefined && summary.at > filter.to) return false;
  if (filter.contains !== undefined && !requestText().includes(filter.contains)) return false;
  return true;
}
