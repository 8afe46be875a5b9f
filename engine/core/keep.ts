import { randomUUID } from 'node:crypto';
import type { Journal } from '../journal/journal';
import type { JournalEntry, JournalEntryWhat } from '../journal/journal-entry';
import type { Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import type { TraceStep } from '../trace/steps';
import type { Served } from './stage';

/**
 * The journal stage: keeps a served request (a contract route's or a push's) in the journal, when it
 * keeps any. Returns the request's entry, built when first asked (see createKeeper).
 */
export type Keep = (mapping: Mapping, served: Served, durationMs: number, steps: TraceStep[], what: JournalEntryWhat) => (() => JournalEntry) | undefined;

/** `mask`: the engine's secrets, masked whenever an entry leaves the journal. */
export function createKeeper(journal: Journal, mask: Masker): Keep {
  // Entry ids: unique across the processes sharing a state store, and cheaper than a UUID per request.
  const journalPrefix = randomUUID().slice(0, 8);
  let journalCount = 0;
  return (mapping, served, durationMs, steps, what) => {
    if (journal.size === 0) return undefined;
    // The entry is built only for a request the journal keeps, or for what reads it after the answer
    // (a shadow candidate replays the ERP's answers from it; a dry run shows it). Built for every
    // request, its time as ISO text and its copies cost about 1.5% of serve's CPU on code lookups,
    // most of which the CPU budget then left out (CPU profile of serve under load).
    let entry: JournalEntry | undefined;
    const entryOf = (): JournalEntry => (entry ??= {
      id: `${journalPrefix}-${(journalCount += 1)}`,
      requestId: served.requestId, at: new Date(served.startedAt).toISOString(), mapping: mapping.name, file: mapping.file,
      ...what,
      request: { ...what.request, traceId: served.trace.traceId },
      steps,
      rulesMatched: steps.flatMap((step) => (step.step === 'rule' && step.matched ? [{ call: step.call, when: step.when, result: step.result, at: step.at }] : [])),
      durationMs: Math.round(durationMs * 10) / 10,
    });
    if (journal.admits(what.success)) journal.add(entryOf(), mask);
    return entryOf;
  };
}
