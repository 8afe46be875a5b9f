import { randomUUID } from 'node:crypto';
import type { Journal } from '../journal/journal';
import type { JournalEntry, JournalEntryWhat } from '../journal/journal-entry';
import type { Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import type { TraceStep } from '../trace/steps';
import type { Served } from './stage';

/** The journal stage: keeps a served request (a contract route's or a push's) in the journal, when it keeps any. */
export type Keep = (mapping: Mapping, served: Served, durationMs: number, steps: TraceStep[], what: JournalEntryWhat) => JournalEntry | undefined;

/** `mask`: the engine's secrets, masked whenever an entry leaves the journal. */
export function createKeeper(journal: Journal, mask: Masker): Keep {
  // Entry ids: unique across the processes sharing a state store, and cheaper than a UUID per request.
  const journalPrefix = randomUUID().slice(0, 8);
  let journalCount = 0;
  return (mapping, served, durationMs, steps, what) => {
    if (journal.size === 0) return undefined;
    const entry: JournalEntry = {
      id: `${journalPrefix}-${(journalCount += 1)}`,
      requestId: served.requestId, at: new Date(served.startedAt).toISOString(), mapping: mapping.name, file: mapping.file,
      ...what,
      request: { ...what.request, traceId: served.trace.traceId },
      steps,
      rulesMatched: steps.flatMap((step) => (step.step === 'rule' && step.matched ? [{ call: step.call, when: step.when, result: step.result, at: step.at }] : [])),
      durationMs: Math.round(durationMs * 10) / 10,
    };
    // A success past the journal's CPU budget is not kept; its entry still carries the request's trace
    // to what runs after the answer (a shadow candidate replays the ERP's answers from it).
    journal.add(entry, mask);
    return entry;
  };
}
