import type { Logger } from '../log';
import { createMasker, type Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import { listLimit, matchesFilter, type JournalFilter, type JournalRecord, type JournalStore, type JournalSummary } from '../journal/store';
import { maskEntry, maskRequest, requestText, type JournalEntry } from './journal-entry';

/**
 * The request journal: the last `size` requests of each mapping, in memory (a ring per mapping, so a
 * request costs one slot write), and in the state store when there is one. Entries are kept as the engine
 * made them and masked when read; what goes to the store is masked before it leaves the process. Writes
 * to the store are batched and run after the answer, never on a request's path; a failing store is
 * logged and the memory journal goes on.
 */
export interface Journal {
  /** Requests kept per mapping; 0 keeps none. */
  readonly size: number;
  add(entry: JournalEntry, mapping: Mapping): void;
  /** Newest first. From the store when there is one (it also holds other processes' requests). */
  list(filter: JournalFilter): Promise<JournalSummary[]>;
  /** The entry, masked. */
  get(id: string): Promise<JournalEntry | undefined>;
  /** Writes what waits for the store. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_JOURNAL_SIZE = 1000;

interface Kept {
  readonly entry: JournalEntry;
  readonly mask: Masker;
}

/** A fixed-size ring: the newest `size` items, read newest first. */
class Ring<T> {
  readonly #items: (T | undefined)[];
  #next = 0;

  constructor(readonly size: number) {
    this.#items = new Array<T | undefined>(size);
  }

  /** Returns the item that fell out to make room. */
  push(item: T): T | undefined {
    const evicted = this.#items[this.#next];
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.size;
    return evicted;
  }

  *newestFirst(): Generator<T> {
    for (let i = 1; i <= this.size; i += 1) {
      const item = this.#items[(this.#next - i + this.size) % this.size];
      if (item === undefined) return;
      yield item;
    }
  }
}

const STORE_FLUSH_MS = 200;

function withQuery(path: string, query: JournalEntry['request']['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) if (typeof one === 'string') params.append(name, one);
  }
  return params.size > 0 ? `${path}?${params}` : path;
}

/** The entry's line in a list; its path masked by `mask` (an entry from the store is masked already). */
export function summaryOf(entry: JournalEntry, mask?: Masker): JournalSummary {
  const path = withQuery(entry.request.path, entry.request.query);
  return {
    id: entry.id, requestId: entry.requestId, at: Date.parse(entry.at), mapping: entry.mapping, operation: entry.operation,
    method: entry.request.method, path: mask ? mask.text(path) : path, result: entry.result, success: entry.success, durationMs: entry.durationMs,
  };
}

export function createJournal(options: { readonly size: number; readonly store?: JournalStore; readonly log?: Logger }): Journal {
  const { size, store, log } = options;
  const rings = new Map<string, Ring<Kept>>();
  const maskers = new WeakMap<Mapping, Masker>();
  const byId = new Map<string, Kept>();
  let pending: Kept[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const maskerOf = (mapping: Mapping): Masker => {
    let mask = maskers.get(mapping);
    if (!mask) maskers.set(mapping, (mask = createMasker(mapping.secretValues)));
    return mask;
  };
  const recordOf = (kept: Kept): JournalRecord => {
    const masked = maskEntry(kept.entry, kept.mask);
    return { ...summaryOf(masked), requestText: requestText(masked.request), entry: JSON.stringify(masked) };
  };
  const write = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (!store || batch.length === 0) return writing;
    writing = writing.then(async () => {
      try {
        await store.append(batch.map(recordOf), size);
      } catch (error) {
        log?.warn({ err: error, store: store.location, entries: batch.length }, 'the request journal could not write to the state store; these requests are kept in memory only');
      }
    });
    return writing;
  };

  return {
    size,
    add(entry, mapping) {
      if (size === 0) return;
      let ring = rings.get(entry.mapping);
      if (!ring) rings.set(entry.mapping, (ring = new Ring<Kept>(size)));
      const kept: Kept = { entry, mask: maskerOf(mapping) };
      const evicted = ring.push(kept);
      if (evicted) byId.delete(evicted.entry.id);
      byId.set(entry.id, kept);
      if (store) {
        pending.push(kept);
        timer ??= setTimeout(() => void write(), STORE_FLUSH_MS).unref();
      }
    },
    async list(filter) {
      if (store) {
        await write();
        return store.list(filter);
      }
      const rows: JournalSummary[] = [];
      for (const [name, ring] of rings) {
        if (filter.mapping !== undefined && name !== filter.mapping) continue;
        for (const { entry, mask } of ring.newestFirst()) {
          const summary = summaryOf(entry, mask);
          if (matchesFilter(summary, filter, () => requestText(maskRequest(entry.request, mask)))) rows.push(summary);
        }
      }
      return rows.sort((a, b) => b.at - a.at).slice(0, listLimit(filter));
    },
    async get(id) {
      const kept = byId.get(id);
      if (kept) return maskEntry(kept.entry, kept.mask);
      if (!store) return undefined;
      await write();
      const record = await store.get(id);
      return record && (JSON.parse(record.entry) as JournalEntry);
    },
    flush: write,
    async close() {
      await write();
      await store?.close();
    },
  };
}
