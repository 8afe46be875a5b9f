import type { Envelope } from '../contract/envelope';
import { MAX_BODY_DEPTH } from '../contract/body-depth';
import type { AttemptOutcome, EventStatus } from '../outbox/store';
import type { TraceStep } from '../trace/steps';

/**
 * One request as the journal keeps it: what the platform sent (or the ERP pushed), every call as the
 * dry-run trace shows it, the outcome rules that matched, the envelope (or a push's answer) and how long
 * it took.
 */
export interface JournalEntry {
  readonly id: string;
  readonly requestId: string;
  /** ISO 8601, when the request arrived. */
  readonly at: string;
  readonly mapping: string;
  /** The mapping file as the server named it. */
  readonly file: string;
  readonly operation: string;
  /** The contract route, e.g. GET /WorkOrders/Code. */
  readonly route: string;
  readonly mode: string;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly query?: Readonly<Record<string, unknown>>;
    /** Cut at BODY_LIMIT_BYTES (see `truncated`). */
    readonly body?: unknown;
    /** Path parameters of the route (GET /Items/{number}), as the engine read them. */
    readonly params?: Readonly<Record<string, string>>;
    /**
     * The W3C trace id the request ran under (the caller's traceparent continued, or a new one), which
     * every ERP call of it carried: `requests --contains <trace id>` finds it from an ERP's log line.
     */
    readonly traceId?: string;
  };
  readonly steps: readonly TraceStep[];
  /** The outcome rules that matched (usually one): which rule decided the result. */
  readonly rulesMatched: readonly { readonly call: string; readonly when: string; readonly result: string; readonly at: string }[];
  readonly result: string;
  readonly success: boolean;
  /** Why the engine failed the request, in its words. */
  readonly failure?: { readonly kind: string; readonly message: string };
  /** The envelope answered to the platform (contract routes). */
  readonly envelope?: Envelope;
  /** The HTTP answer to the ERP (push endpoints, which answer no envelope). */
  readonly answer?: { readonly status: number; readonly body: unknown };
  readonly durationMs: number;
  /**
   * How the ERP's answers departed from the shapes of the mapping's recorded answers (ERP drift): a field
   * every recording had that is missing, a value of another type, a list that became an object.
   */
  readonly drift?: readonly { readonly call: string; readonly kind: string; readonly path: string; readonly expected: string; readonly got: string }[];
  /** A shadow candidate's run (journal entries under the mapping `<name>~shadow`): the live request it ran on and how its answer differs. */
  readonly shadow?: ShadowRun;
  /**
   * Where each outbox event this request stored stands now (read from the outbox when the entry is
   * read, not kept in the journal): "the platform was told Succeed; did the ERP get it?".
   */
  readonly events?: readonly EventState[];
}

/** What a shadow candidate's run on a live request's ERP answers came to. */
export interface ShadowRun {
  /** The live request's journal entry. */
  readonly live: string;
  readonly outcome: 'different' | 'failed';
  /** The live answer's result name. */
  readonly liveResult: string;
  /** Field-level differences of the candidate's envelope from the live one (JSON paths, old → new). */
  readonly differences: readonly { readonly path: string; readonly old?: unknown; readonly new?: unknown }[];
  /** Why the candidate could not run (outcome failed): an ERP call with no recorded answer, a fault. */
  readonly reason?: string;
}

/** An outbox event as support staff follow it; `gone` once delivered or dropped events were purged. */
export interface EventState {
  readonly id: string;
  readonly status: EventStatus | 'gone';
  readonly attempts?: number;
  /** ISO 8601: the next attempt (pending), or when it was delivered, went dead or was dropped. */
  readonly nextAttemptAt?: string;
  readonly settledAt?: string;
  /** The last failed attempt: the error, and the ERP's status and (the start of its) body. */
  readonly last?: AttemptOutcome;
  readonly dropReason?: string;
}

/** What the engine knows of a request once it is answered; the journal adds the rest (id, time, steps, rules). */
export type JournalEntryWhat = Omit<JournalEntry, 'id' | 'requestId' | 'at' | 'mapping' | 'file' | 'steps' | 'rulesMatched' | 'durationMs'>;

/** A body larger than this (as JSON) is kept as its first part, with a marker. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** What stands for a body cut at BODY_LIMIT_BYTES. */
export interface Truncated {
  readonly truncated: string;
  readonly start: string;
}

export function isTruncated(value: unknown): value is Truncated {
  return typeof value === 'object' && value !== null && typeof (value as Truncated).truncated === 'string' && typeof (value as Truncated).start === 'string' && Object.keys(value).length === 2;
}

/** How long the value's JSON is (estimated), and whether JSON.stringify writes it as jsonStart does. */
interface Measure {
  /** Lengths are close (strings without escapes, numbers as written), which is all a limit needs. */
  readonly longerThanBudget: boolean;
  readonly length: number;
  /**
   * Only JSON.parse's kinds of values (plain objects and arrays, texts, numbers, booleans, null): for
   * those JSON.stringify writes what jsonStart writes (no undefined left out, no toJSON, no Date).
   */
  readonly plain: boolean;
  /**
   * For a list: how many of its first elements hold only JSON.parse's kinds of values and were measured
   * whole within the budget (JSON.stringify writes them as jsonStart would); 0 for anything else.
   */
  readonly whole: number;
  /** Nested deeper than MAX_BODY_DEPTH: measured no further, and written without recursion (deepStart). */
  readonly deep: boolean;
}

/**
 * The value's JSON measured without building it and without looking further than the budget: a 30 MB
 * upload costs what its first `budget` characters cost.
 */
function measure(value: unknown, budget: number): Measure {
  let left = budget;
  let plain = true;
  let whole = 0;
  let depth = 0;
  let deep = false;
  const visit = (item: unknown): boolean => {
    // A body the engine refused for its depth (5,000 or 50,000 levels) would overflow the stack here.
    if (depth > MAX_BODY_DEPTH) {
      deep = true;
      return true;
    }
    if (typeof item === 'string') left -= item.length + 2;
    else if (typeof item === 'number' || typeof item === 'boolean') left -= 6;
    else if (item === null || item === undefined) {
      left -= 4;
      if (item === undefined) plain = false;
    } else if (Array.isArray(item)) {
      left -= 2;
      if (Object.getPrototypeOf(item) !== Array.prototype) plain = false;
      depth += 1;
      for (const element of item) {
        if (left < 0 || visit(element)) return true;
        if (depth === 1 && plain) whole += 1;
      }
      depth -= 1;
    } else if (typeof item === 'object') {
      left -= 2;
      const prototype = Object.getPrototypeOf(item) as unknown;
      if ((prototype !== Object.prototype && prototype !== null) || typeof (item as { toJSON?: unknown }).toJSON === 'function') plain = false;
      depth += 1;
      for (const key in item) {
        left -= key.length + 4;
        if (left < 0 || visit((item as Record<string, unknown>)[key])) return true;
      }
      depth -= 1;
    } else {
      plain = false;
    }
    return left < 0;
  };
  const longer = visit(value);
  return { longerThanBudget: longer, length: budget - left, plain, whole, deep };
}

/**
 * The first `limit` characters of the value's JSON, built no further than that. A list or object is
 * written element by element; an element that fits in what is left and holds only JSON.parse's kinds of
 * values is written by JSON.stringify (a few times faster than this walk), and so are the first
 * elements of a list that fit, in one call, so a page of 500 orders costs about what its first `limit`
 * characters cost, written natively.
 */
function jsonStart(value: unknown, limit: number, measured: Measure): string {
  let out = '';
  // `known`: the item's measure when taken already (the value itself, by cutTo: longer than the limit).
  const write = (item: unknown, known?: Measure): void => {
    if (out.length >= limit) return;
    if (typeof item === 'string') out += JSON.stringify(item.slice(0, limit - out.length));
    else if (item === null || item === undefined || typeof item !== 'object') out += JSON.stringify(item ?? null) ?? 'null';
    else {
      const size = known ?? measure(item, limit - out.length);
      if (size.plain && !size.longerThanBudget) out += JSON.stringify(item);
      else if (Array.isArray(item)) {
        out += '[';
        // One JSON.stringify for the first elements that fit whole: a call (and a joined string) per
        // element cost twice as much for a page of orders (bench/results/2026-11-25.md).
        if (size.whole > 0) out += JSON.stringify(item.slice(0, size.whole)).slice(1, -1);
        for (let index = size.whole; index < item.length && out.length < limit; index += 1) {
          if (!(index in item)) continue; // a hole: skipped, as forEach skipped it
          out += index > 0 ? ',' : '';
          write(item[index]);
        }
        out += ']';
      } else {
        out += '{';
        let first = true;
        for (const [key, element] of Object.entries(item)) {
          if (out.length >= limit) break;
          out += `${first ? '' : ','}${JSON.stringify(key)}:`;
          first = false;
          write(element);
        }
        out += '}';
      }
    }
  };
  write(value, measured);
  return out.slice(0, limit);
}

/** Text written as it is by deepStart (brackets, commas, keys), beside the values still to write. */
class Written {
  constructor(readonly text: string) {}
}

/**
 * The first `limit` characters of a deeply nested value's JSON, written with a stack of its own rather
 * than by recursion (and not by JSON.stringify, which overflows too): the journal keeps such a request.
 */
function deepStart(value: unknown, limit: number): string {
  let out = '';
  const pending: unknown[] = [value];
  while (pending.length > 0 && out.length < limit) {
    const item = pending.pop();
    if (item instanceof Written) out += item.text;
    else if (typeof item === 'string') out += JSON.stringify(item.slice(0, limit - out.length));
    else if (item === null || item === undefined || typeof item !== 'object') out += JSON.stringify(item ?? null) ?? 'null';
    else if (Array.isArray(item)) {
      out += '[';
      pending.push(new Written(']'));
      for (let index = item.length - 1; index >= 0; index -= 1) pending.push(item[index], ...(index > 0 ? [new Written(',')] : []));
    } else {
      out += '{';
      pending.push(new Written('}'));
      const entries = Object.entries(item);
      for (let index = entries.length - 1; index >= 0; index -= 1) pending.push(entries[index][1], new Written(`${index > 0 ? ',' : ''}${JSON.stringify(entries[index][0])}:`));
    }
  }
  return out.slice(0, limit);
}

/**
 * What the bodies of one entry may hold together. Without it an entry grew with its calls: a
 * `GET /WorkOrders` of six ERP pages kept 7 × 64 KB (544 KB of text), a thousand of them half a
 * gigabyte per mapping, and cutting and writing them was a sixth of the request's CPU.
 */
export const ENTRY_BODIES_LIMIT_BYTES = 2 * BODY_LIMIT_BYTES;

/** The value itself when it fits `limit`; the first `limit` characters of its JSON with a marker otherwise; and what it holds. */
function cutTo(value: unknown, limit: number): { kept: unknown; length: number } {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return { kept: value, length: 0 };
  if (limit === 0) {
    const truncated = `not kept: the bodies before it in this request hold the ${ENTRY_BODIES_LIMIT_BYTES} characters of JSON the journal keeps per request`;
    return { kept: { truncated, start: '' } satisfies Truncated, length: 0 };
  }
  const size = measure(value, limit);
  if (!size.longerThanBudget) return { kept: value, length: size.length };
  if (size.deep) {
    const truncated = `nested more than ${MAX_BODY_DEPTH} levels deep; the first ${limit} characters of its JSON are kept`;
    return { kept: { truncated, start: deepStart(value, limit) } satisfies Truncated, length: limit };
  }
  const start = jsonStart(value, limit, size); // the value is longer than the limit (measured above)
  return { kept: { truncated: `more than ${limit} characters of JSON; the first ${limit} are kept`, start } satisfies Truncated, length: limit };
}

/** The value itself when small; the first BODY_LIMIT_BYTES of its JSON with a marker otherwise. */
export function capped(value: unknown): unknown {
  return cutTo(value, BODY_LIMIT_BYTES).kept;
}

/**
 * What an expression step keeps of what it read and gave: a dry run's trace is read by a person, and
 * the document an expression reads holds every answer before it. Its own limit, outside the entry's
 * budget for bodies, so that expressions never push the ERP's answers out of the entry.
 */
export const EXPRESSION_LIMIT_BYTES = 2 * 1024;

/** Steps with each expression's read and gave cut to EXPRESSION_LIMIT_BYTES; the other steps as they are. */
export function cappedExpressions(steps: readonly TraceStep[]): TraceStep[] {
  return steps.map((step) => {
    if (step.step !== 'expression') return step;
    const gave = 'gave' in step ? { gave: cutTo(step.gave, EXPRESSION_LIMIT_BYTES).kept } : {};
    return { ...step, read: cutTo(step.read, EXPRESSION_LIMIT_BYTES).kept, ...gave };
  });
}

/**
 * The entry with every body (request, calls, output, envelope data) cut to BODY_LIMIT_BYTES, and all
 * of them together to ENTRY_BODIES_LIMIT_BYTES: the platform's request first, then what it was
 * answered, then the calls in the order they ran.
 */
export function cappedEntry(entry: JournalEntry): JournalEntry {
  // The envelope's data is the output step's data: cut once, it stays one object, which the journal
  // then writes once (serialised in journal.ts).
  const cut = new Map<unknown, unknown>();
  let left = ENTRY_BODIES_LIMIT_BYTES;
  const cutOnce = (value: unknown): unknown => {
    if (!cut.has(value)) {
      const { kept, length } = cutTo(value, Math.min(BODY_LIMIT_BYTES, left));
      left -= length;
      cut.set(value, kept);
    }
    return cut.get(value);
  };
  const request = { ...entry.request, body: cutOnce(entry.request.body) };
  const { envelope } = entry;
  const answered = envelope && 'data' in envelope ? { ...envelope, data: cutOnce(envelope.data) } : envelope;
  const steps = cappedExpressions(entry.steps).map((step) => {
    switch (step.step) {
      case 'request': return step.body === undefined ? step : { ...step, body: cutOnce(step.body) };
      case 'response': return { ...step, body: cutOnce(step.body) };
      case 'output': return { ...step, data: cutOnce(step.data) };
      default: return step;
    }
  });
  return { ...entry, request, steps, envelope: answered };
}
