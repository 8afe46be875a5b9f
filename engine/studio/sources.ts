import type { JournalEntry } from '../journal/journal-entry';
import type { JournalFilter, JournalSummary } from '../journal/store';
import type { OutboxStore } from '../outbox/store';
import type { MappingView } from './views';

/**
 * What the read-only studio shows, from whoever runs it: `adapter-engine studio` (its workspace) or
 * `serve` on its admin port (its mapping files, journal and outbox). Retrying and dropping a dead letter
 * use the same store; editing, trying and testing need the workspace (see endpoints.ts).
 */
export interface StudioSources {
  mappings(): readonly MappingView[];
  requests(filter: JournalFilter): Promise<readonly JournalSummary[]>;
  /** A journal entry, masked. */
  request(id: string): Promise<JournalEntry | undefined>;
  readonly outbox?: OutboxStore;
  /** Masks what an event of the named mapping carries (its input, the ERP's answer). */
  maskEvent<T>(mapping: string, event: T): T;
  /** Delivers due events now (after a retry). */
  wake(): void;
}
