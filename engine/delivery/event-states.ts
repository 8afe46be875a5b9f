import type { Masker } from '../mapping/mask';
import type { OutboxStore, StoredEvent } from '../outbox/store';
import type { EventState, JournalEntry } from '../journal/journal-entry';

/**
 * The journal entry of a request with where each outbox event it stored stands now. The journal keeps
 * what the platform was answered; whether the ERP got the event is the outbox's to say, at the time of
 * asking, so it is read then. The ERP's last answer is masked as the rest of the entry is.
 */
export async function withEventStates(entry: JournalEntry, store: OutboxStore, mask: Masker | undefined): Promise<JournalEntry> {
  const ids = entry.steps.flatMap((step) => (step.step === 'stored' ? [step.eventId] : []));
  if (ids.length === 0) return entry;
  const events = await Promise.all(ids.map(async (id): Promise<EventState> => {
    const event = await store.get(id);
    return event ? stateOf(event, mask) : { id, status: 'gone' };
  }));
  return { ...entry, events };
}

function stateOf(event: StoredEvent, mask: Masker | undefined): EventState {
  const at = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const last = event.last && mask ? { ...event.last, error: mask.text(event.last.error), ...(event.last.body === undefined ? {} : { body: mask.text(event.last.body) }) } : event.last;
  return {
    id: event.id,
    status: event.status,
    attempts: event.attempts,
    ...(event.status === 'pending' ? { nextAttemptAt: at(event.nextAttemptAt) } : { settledAt: at(event.settledAt) }),
    ...(last ? { last } : {}),
    ...(event.dropReason ? { dropReason: event.dropReason } : {}),
  };
}
