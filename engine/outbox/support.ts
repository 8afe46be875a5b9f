import type { EventKind, EventStatus, ListFilter, ListOrder, OutboxStore, StoredEvent } from './store';

/**
 * What support staff do with the outbox (`adapter-engine outbox`), whether the CLI opens the store itself
 * (--state-dir, DATABASE_URL) or asks a running server's admin listener (which has the credentials):
 * the admin endpoints run these same functions on the server's store, so both ways behave alike.
 * Ids may be shortened to a unique prefix, as git's.
 */

/** A refusal: an unknown or ambiguous id, or an event in the wrong state; `status` is the admin listener's HTTP answer for it. */
export interface SupportProblem {
  readonly problem: string;
  readonly status: 400 | 404 | 409;
}

export type Answer<T> = T | SupportProblem;

export const isProblem = <T>(answer: Answer<T>): answer is SupportProblem => typeof answer === 'object' && answer !== null && 'problem' in answer;

/** What `retry` did: a dead event became pending, or a pending one (in backoff) was made due now. */
interface Retried {
  readonly id: string;
  readonly was: 'dead' | 'pending';
}

export interface OutboxSupport {
  list(filter: ListFilter): Promise<StoredEvent[]>;
  show(id: string): Promise<Answer<StoredEvent>>;
  retry(id: string): Promise<Answer<Retried>>;
  drop(id: string, reason: string): Promise<Answer<{ readonly id: string }>>;
  /** Delivered and dropped events settled before `before` (ms since the epoch) are deleted; how many. */
  purge(before: number): Promise<number>;
}

export const EVENT_STATUSES: readonly EventStatus[] = ['pending', 'dead', 'delivered', 'dropped', 'refused'];
const KINDS: readonly EventKind[] = ['event', 'push'];
export const LIST_ORDERS: readonly ListOrder[] = ['accepted', 'settled'];
/** Shorter prefixes match too much to be meant: like git, at least 4 characters. */
const SHORTEST_PREFIX = 4;

/** The one event whose id is `given` or starts with it. */
async function resolveEventId(store: OutboxStore, given: string): Promise<Answer<string>> {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(given)) return { problem: `"${given}" is no event id (ids are UUIDs, or their first characters)`, status: 400 };
  if (await store.get(given)) return given;
  if (given.length < SHORTEST_PREFIX) return { problem: `no event ${given}; a shortened id needs at least ${SHORTEST_PREFIX} characters`, status: 404 };
  const ids = await store.idsStartingWith(given.toLowerCase(), 6);
  if (ids.length === 1) return ids[0];
  if (ids.length === 0) return { problem: `no event ${given} in the outbox (${store.location})`, status: 404 };
  return { problem: `${given} is ambiguous: it starts ${ids.length > 5 ? 'more than 5 events' : `${ids.length} events`} (${ids.slice(0, 5).join(', ')}); give more of the id`, status: 409 };
}

/** The support actions on a store; `retried` is told of each retried event (a server delivers it at once). */
export function storeSupport(store: OutboxStore, retried: () => void = () => undefined): OutboxSupport {
  const withId = async <T>(given: string, work: (id: string) => Promise<Answer<T>>): Promise<Answer<T>> => {
    const id = await resolveEventId(store, given);
    return isProblem(id) ? id : work(id);
  };
  return {
    list: (filter) => store.list(filter),
    show: (given) => withId(given, async (id) => (await store.get(id)) ?? { problem: `no event ${given}`, status: 404 }),
    retry: (given) => withId(given, async (id) => {
      const was = await store.retry(id, Date.now());
      if (was === undefined) return { problem: `${id}: not retried: only a dead or pending event can be (see adapter-engine outbox show ${id})`, status: 409 };
      retried();
      return { id, was };
    }),
    drop: (given, reason) => withId(given, async (id) => {
      if (reason.trim() === '') return { problem: 'the reason must say why the event is given up; it is kept in the record', status: 400 };
      return (await store.drop(id, reason, Date.now())) ? { id } : { problem: `${id}: not dropped: only a pending or dead event can be`, status: 409 };
    }),
    purge: (before) => store.purge(before),
  };
}

/** The list filter as the admin listener's query string carries it (`GET /outbox?status=dead&limit=20`), and the studio's outbox page. */
export function listFilterFromQuery(query: Readonly<Record<string, string | string[] | undefined>>): { filter: ListFilter } | { error: string } {
  const one = (name: string): string | undefined => (Array.isArray(query[name]) ? query[name][0] : query[name]);
  const status = (one('status') ?? 'pending,dead').split(',').map((word) => word.trim()) as EventStatus[];
  const unknown = status.filter((word) => !EVENT_STATUSES.includes(word));
  if (unknown.length > 0) return { error: `status takes ${EVENT_STATUSES.join(', ')}; got ${unknown.join(', ')}` };
  const kind = one('kind');
  if (kind !== undefined && !KINDS.includes(kind as EventKind)) return { error: `kind takes ${KINDS.join(' or ')}; got ${kind}` };
  const numberOf = (name: string): number | undefined | { error: string } => {
    const text = one(name);
    if (text === undefined) return undefined;
    const value = Number(text);
    return Number.isInteger(value) && value >= 0 ? value : { error: `${name} must be a whole number, got "${text}"` };
  };
  const order = one('order');
  if (order !== undefined && !LIST_ORDERS.includes(order as ListOrder)) return { error: `order takes ${LIST_ORDERS.join(' or ')}; got ${order}` };
  const limit = numberOf('limit');
  const acceptedBefore = numberOf('acceptedBefore');
  if (typeof limit === 'object') return limit;
  if (typeof acceptedBefore === 'object') return acceptedBefore;
  return { filter: { status, kind: kind as EventKind | undefined, mapping: one('mapping'), operation: one('operation'), orderingKey: one('key'), acceptedBefore, limit, order: order as ListOrder | undefined } };
}

/** The inverse of listFilterFromQuery, for the CLI's request. */
export function listFilterQuery(filter: ListFilter): URLSearchParams {
  const query = new URLSearchParams();
  const set = (name: string, value: string | number | undefined) => { if (value !== undefined) query.set(name, String(value)); };
  set('status', filter.status?.join(','));
  set('kind', filter.kind);
  set('mapping', filter.mapping);
  set('operation', filter.operation);
  set('key', filter.orderingKey);
  set('acceptedBefore', filter.acceptedBefore);
  set('limit', filter.limit);
  set('order', filter.order);
  return query;
}
