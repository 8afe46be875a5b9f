import type { JournalEntry } from '../journal/journal-entry';
import type { JournalFilter, JournalSummary } from '../journal/store';
import type { Mapping } from '../mapping/model';
import type { OutboxStore } from '../outbox/store';
import { maskerOf } from '../testing/run-case';
import type { StudioSources } from './sources';
import { mappingView } from './views';

/** A mapping file as `serve` loaded it: its last good mapping and the errors of its last attempt (as text). */
export interface ServedFile {
  readonly file: string;
  readonly mapping?: Mapping;
  readonly last: { readonly ok: boolean; readonly problems: readonly string[] };
}

/** The read-only studio of a running `serve`: its files, its journal, its outbox. */
export function servedStudioSources(deps: {
  readonly files: () => readonly ServedFile[];
  readonly requests: (filter: JournalFilter) => Promise<readonly JournalSummary[]>;
  readonly request: (id: string) => Promise<JournalEntry | undefined>;
  readonly outbox?: OutboxStore;
  readonly wake: () => void;
}): StudioSources {
  return {
    mappings: () => deps.files().map((state) => mappingView({
      name: state.file,
      path: state.file,
      loads: state.last.ok,
      serving: state.mapping,
      issues: state.last.problems.map((text) => ({ severity: 'error', line: Number(/:(\d+):\d+ {2}/.exec(text)?.[1] ?? 0), text })),
    })),
    requests: deps.requests,
    request: deps.request,
    outbox: deps.outbox,
    maskEvent: (name, event) => {
      const mapping = deps.files().find((state) => state.mapping?.name === name)?.mapping;
      return mapping ? (maskerOf(mapping).deep(event) as typeof event) : event;
    },
    wake: deps.wake,
  };
}
