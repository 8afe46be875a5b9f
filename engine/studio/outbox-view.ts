import type { Logger } from '../log';
import type { ListFilter, StoredEvent } from '../outbox/store';
import { isProblem, storeSupport } from '../outbox/support';
import { StudioError } from './studio-error';
import type { StudioSources } from './sources';

/**
 * The Outbox page: events and pushes waiting (pending, retrying: pending after a failed attempt) or dead,
 * counted per mapping and kind, with the oldest pending age; and the events of the statuses asked
 * (the admin listener's `GET /outbox` filter, read by the same store query: waiting ones by default,
 * delivered, refused or dropped ones with when and what the receiver answered). Inputs and answers are
 * masked with their mapping's secrets. Retry and drop are `outbox retry/drop`'s own (outbox/support.ts).
 */
interface Group {
  readonly mapping: string;
  readonly kind: string;
  pending: number;
  retrying: number;
  dead: number;
  oldestPendingMs?: number;
}

export interface OutboxView {
  readonly groups: readonly Group[];
  readonly events: readonly StoredEvent[];
}

export async function outboxView(sources: StudioSources, now: number, filter: ListFilter): Promise<OutboxView> {
  const store = sources.outbox;
  if (!store) return { groups: [], events: [] };
  const support = storeSupport(store);
  const waiting = await support.list({ status: ['pending', 'dead'], limit: 500 });
  const groups = new Map<string, Group>();
  for (const event of waiting) {
    const key = `${event.mapping}\u0000${event.kind}`;
    const group = groups.get(key) ?? { mapping: event.mapping, kind: event.kind, pending: 0, retrying: 0, dead: 0 };
    groups.set(key, group);
    if (event.status === 'dead') group.dead += 1;
    else if (event.attempts > 0) group.retrying += 1;
    else group.pending += 1;
    if (event.status === 'pending') group.oldestPendingMs = Math.max(group.oldestPendingMs ?? 0, now - event.acceptedAt);
  }
  const events = await support.list(filter);
  return { groups: [...groups.values()], events: events.map((event) => sources.maskEvent(event.mapping, event)) };
}

/**
 * Retry (a dead event pending again, a pending one due now) or drop (with the reason kept) one event:
 * the same support actions as `outbox retry/drop` and the admin listener (outbox/support.ts); logged for the record.
 */
export async function settleEvent(sources: StudioSources, log: Logger, id: string, action: 'retry' | 'drop', reason: string | undefined): Promise<string> {
  const store = sources.outbox;
  if (!store) throw new StudioError(404, 'this studio keeps no outbox');
  const support = storeSupport(store, () => sources.wake());
  if (action === 'retry') {
    const retried = await support.retry(id);
    if (isProblem(retried)) throw new StudioError(retried.status, retried.problem);
    log.info({ event: retried.id, was: retried.was, by: 'studio' }, 'outbox event retried from the studio');
    return retried.was === 'dead' ? `${retried.id}: pending again; the engine delivers it next` : `${retried.id}: due now; the engine delivers it next`;
  }
  const dropped = await support.drop(id, reason ?? '');
  if (isProblem(dropped)) throw new StudioError(dropped.status, dropped.problem);
  log.info({ event: dropped.id, reason, by: 'studio' }, 'outbox event dropped from the studio');
  return `${dropped.id}: dropped ("${reason ?? ''}")`;
}
