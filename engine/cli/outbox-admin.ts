import { isProblem, listFilterQuery, type Answer, type OutboxSupport } from '../outbox/support';
import type { StoredEvent } from '../outbox/store';
import { fetchAdmin, type AdminOptions } from './admin-client';
import { errorOf } from './journal-read';
import { usageError } from './usage';

/**
 * The outbox's support actions through a running server's admin listener (`outbox --admin`): the server
 * runs them on its store (see engine/outbox/support.ts), so support staff need its admin token, not the
 * database's credentials.
 */
export function adminSupport(options: AdminOptions): OutboxSupport {
  const call = async <T>(path: string, post?: Record<string, unknown>): Promise<Answer<T>> => {
    const { status, body } = await fetchAdmin(options, path, post);
    if (status === 200) return body as T;
    if (status === 400 || status === 404 || status === 409) return { problem: errorOf(body), status };
    throw new Error(`${post ? 'POST' : 'GET'} ${path} answered ${status}: ${errorOf(body)}`);
  };
  /** List and purge have no refusal but a wrong option, which the CLI checked already: any refusal is the server's word on it. */
  const surely = async <T>(answer: Promise<Answer<T>>): Promise<T> => {
    const settled = await answer;
    return isProblem(settled) ? usageError(settled.problem) : settled;
  };
  const event = (id: string, action = '') => `/outbox/${encodeURIComponent(id)}${action}`;
  return {
    list: async (filter) => (await surely(call<{ events: StoredEvent[] }>(`/outbox?${listFilterQuery(filter)}`))).events,
    show: (id) => call(event(id)),
    retry: (id) => call(event(id, '/retry'), {}),
    drop: (id, reason) => call(event(id, '/drop'), { reason }),
    purge: async (before) => (await surely(call<{ removed: number }>('/outbox/purge', { before }))).removed,
  };
}
