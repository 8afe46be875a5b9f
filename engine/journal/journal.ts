import type { Logger } from '../log';
import type { Masker } from '../mapping/mask';
import { listLimit, matchesFilter, type JournalFilter, type JournalRecord, type JournalStore, type JournalSummary } from './store';
import { cpuBudget, DEFAULT_JOURNAL_CPU_SHARE } from './cpu-budget';
import { cappedEntry, type JournalEntry } from './journal-entry';
import { maskStepNames } from '../trace/steps';

/**
 * The request journal: the last `size` requests of each mapping, in memory (a ring per mapping), and in
 * the state store when there is one. An entry is kept as one JSON text, not as the objects the request
 * made: a thousand retained object graphs per mapping made every young-generation GC copy them and
 * cost more than the text (bench/README.md#request-journal). Bodies are cut only when the text is large.
 * Entries are masked when read; what goes to the store is masked before it leaves the process. Writes
 * to the store are batched and run after the answer, never on a request's path; a failing store is
 * logged and the memory journal goes on; an entry the store holds is read from there, so memory holds
 * only what waits for it (or what it could not take).
 *
 * Every failure is kept. A success is kept while the journal's CPU budget (cpu-budget.ts: `--journal-max-cpu-share`
 * of the time) has room: under a load that would make the journal cost more, the successes past it are
 * not kept, and the journal's cost stays within that share of the requests'.
 */
export interface Journal {
  /** Requests kept per mapping; 0 keeps none. */
  readonly size: number;
  /**
   * Whether a request is to be kept, asked before its entry is built: a failure always; a success while
   * the CPU budget has room (one left out is counted in `stats().notKept`). False when it keeps none.
   */
  admits(success: boolean): boolean;
  /**
   * Keeps the entry: one the journal admitted, or one it keeps whatever the budget (a shadow candidate's
   * differing run, a run from the studio). `mask`: the secret values to mask whenever the entry leaves
   * (the engine's, which grow as it learns tokens). False when it is not kept: the journal keeps none,
   * or the entry has no JSON text.
   */
  add(entry: JournalEntry, mask: Masker): boolean;
  /** Newest first. From the store when there is one (it also holds other processes' requests). */
  list(filter: JournalFilter): Promise<JournalSummary[]>;
  /** The entry, masked. */
  get(id: string): Promise<JournalEntry | undefined>;
  /** Writes what waits for the store. */
  flush(): Promise<void>;
  /** What the journal holds in memory, and the successes its CPU budget left out (the admin's /metrics). */
  stats(): JournalStats;
  close(): Promise<void>;
}

export const DEFAULT_JOURNAL_SIZE = 1000;

export interface JournalStats {
  /** Characters of entry text held in memory: entries not (yet) in the state store. */
  readonly heldChars: number;
  /** Successful requests not kept since the start: they came while the CPU budget was spent. */
  readonly notKept: number;
}

/**
 * An entry as kept: its JSON text (credentials named as such masked; the mapping's secret values are
 * masked by `mask.json` whenever the text leaves), its request's JSON text apart (what a work order or
 * item number is searched in), and the fields the filters read without parsing.
 */
interface Kept {
  readonly id: string;
  readonly requestId: string;
  readonly mapping: string;
  readonly operation: string;
  readonly method: string;
  readonly result: string;
  readonly success: boolean;
  readonly durationMs: number;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** The texts, until the state store holds them (then read from there). */
  texts: { readonly request: string; readonly text: string } | undefined;
  readonly mask: Masker;
}

/**
 * The entry's JSON text and its request's, built so that each part is serialised once: the request
 * apart, and the envelope's data left out when it is the output step's (a flow's answer), which
 * `restored` puts back.
 */
function serialised(entry: JournalEntry): { request: string; text: string } {
  const request = JSON.stringify(entry.request);
  const output = entry.steps.find((step) => step.step === 'output');
  const shared = output?.step === 'output' && output.data !== undefined && output.data === entry.envelope?.data;
  const rest = JSON.stringify({ ...entry, request: undefined, ...(shared ? { envelope: { ...entry.envelope, data: undefined }, [DATA_IS_OUTPUT]: true } : {}) });
  return { request, text: `{"request":${request},${rest.slice(1)}` };
}

const DATA_IS_OUTPUT = 'envelopeDataIsOutput';

/** An entry read from its JSON text (memory or store), its envelope's data back in place. */
function restored(text: string): JournalEntry {
  const parsed = JSON.parse(text) as JournalEntry & { [DATA_IS_OUTPUT]?: true };
  if (parsed[DATA_IS_OUTPUT] !== true) return parsed;
  const { [DATA_IS_OUTPUT]: _shared, ...entry } = parsed;
  const output = entry.steps.find((step) => step.step === 'output');
  return { ...entry, envelope: entry.envelope && { ...entry.envelope, data: output?.step === 'output' ? output.data : null } };
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


export interface JournalOptions {
  readonly size: number;
  readonly store?: JournalStore;
  readonly log?: Logger;
  /** Share of the time the journal may spend keeping successes (cpu-budget.ts); 1 keeps every one. */
  readonly maxCpuShare?: number;
}

export function createJournal(options: JournalOptions): Journal {
  const { size, store, log } = options;
  const budget = cpuBudget(options.maxCpuShare ?? DEFAULT_JOURNAL_CPU_SHARE);
  const rings = new Map<string, Ring<Kept>>();
  const byId = new Map<string, Kept>();
  let pending: Kept[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let heldChars = 0;
  let notKept = 0;
  const release = (kept: Kept) => {
    if (kept.texts) heldChars -= kept.texts.request.length + kept.texts.text.length;
    kept.texts = undefined;
  };

  const summary = (kept: Kept, texts: NonNullable<Kept['texts']>): JournalSummary => {
    const request = JSON.parse(kept.mask.json(texts.request)) as JournalEntry['request'];
    return {
      id: kept.id, requestId: kept.requestId, at: kept.at, mapping: kept.mapping, operation: kept.operation, method: kept.method,
      path: withQuery(request.path, request.query), result: kept.result, success: kept.success, durationMs: kept.durationMs,
    };
  };
  const recordOf = (kept: Kept, texts: NonNullable<Kept['texts']>): JournalRecord => {
    const requestText = kept.mask.json(texts.request);
    return { ...summary(kept, texts), requestText, entry: kept.mask.json(texts.text) };
  };
  const write = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (!store || batch.length === 0) return writing;
    writing = writing.then(async () => {
      try {
        // The masking and the store's (synchronous) insert are the journal's work too: counted in its budget.
        await budget.spend(() => store.append(batch.flatMap((kept) => (kept.texts ? [recordOf(kept, kept.texts)] : [])), size));
        // Held by the store now: memory keeps the entry's place in the ring, not its text.
        for (const kept of batch) release(kept);
      } catch (error) {
        log?.warn({ err: error, store: store.location, entries: batch.length }, 'the request journal could not write to the state store; these requests are kept in memory only');
      }
    });
    return writing;
  };

  return {
    size,
    admits(success) {
      if (size === 0) return false;
      if (!success || budget.allows()) return true;
      notKept += 1;
      return false;
    },
    add(entry, mask) {
      if (size === 0) return false;
      // All of it counts in the CPU budget: the ring and the index of what is kept too, not only the text.
      return budget.spend(() => {
        let json: { request: string; text: string };
        try {
          // Each body is measured no further than the limit before anything is serialised: an upload or
          // a large ERP answer costs what 64 KB of it costs, not its size.
          json = serialised(cappedEntry({ ...entry, steps: maskStepNames(entry.steps) }));
        } catch (error) {
          // Whatever an ERP answered or a mapping made, keeping it must not fail the request.
          log?.warn({ err: error, requestId: entry.requestId }, 'the request could not be kept in the journal');
          return false;
        }
        let ring = rings.get(entry.mapping);
        if (!ring) rings.set(entry.mapping, (ring = new Ring<Kept>(size)));
        const kept: Kept = {
          id: entry.id, requestId: entry.requestId, mapping: entry.mapping, operation: entry.operation, method: entry.request.method, result: entry.result,
          success: entry.success, durationMs: entry.durationMs, at: Date.parse(entry.at), texts: json, mask,
        };
        heldChars += json.request.length + json.text.length;
        const evicted = ring.push(kept);
        if (evicted) {
          byId.delete(evicted.id);
          release(evicted);
        }
        byId.set(entry.id, kept);
        if (store) {
          pending.push(kept);
          timer ??= setTimeout(() => void write(), STORE_FLUSH_MS).unref();
        }
        return true;
      });
    },
    async list(filter) {
      if (store) {
        await write();
        return store.list(filter);
      }
      const rows: { kept: Kept; texts: NonNullable<Kept['texts']> }[] = [];
      for (const [name, ring] of rings) {
        if (filter.mapping !== undefined && name !== filter.mapping) continue;
        for (const kept of ring.newestFirst()) {
          const { texts } = kept;
          if (texts && matchesFilter(kept, filter, () => kept.mask.json(texts.request))) rows.push({ kept, texts });
        }
      }
      return rows.sort((a, b) => b.kept.at - a.kept.at).slice(0, listLimit(filter)).map((row) => summary(row.kept, row.texts));
    },
    async get(id) {
      const kept = byId.get(id);
      if (kept?.texts) return restored(kept.mask.json(kept.texts.text));
      if (!store) return undefined;
      await write();
      const record = await store.get(id);
      return record && restored(record.entry);
    },
    flush: write,
    stats: () => ({ heldChars, notKept }),
    async close() {
      await write();
      await store?.close();
    },
  };
}
