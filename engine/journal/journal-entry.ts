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
  /** Drift marks of the request past the first DRIFT_MARKS_KEPT, counted: a list of 500 orders can depart at each. */
  readonly driftNotKept?: number;
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

/**
 * A cut start as the entry's text holds it: a JSON string, whose quotes and backslashes are written
 * escaped (a sixth more for a page of orders). Shortened until that written form fits `limit`, so the
 * limit holds for what is kept, not for the text before it was written.
 */
function startWithin(start: string, limit: number): { start: string; length: number } {
  let end = start.length;
  let written = JSON.stringify(start).length - 2;
  while (written > limit) {
    // Characters come off the end, each with the width it is written in (a quote two, a control six):
    // the longest beginning that fits, not one shortened by a guess.
    while (written > limit && end > 0) {
      end -= 1;
      written -= writtenWidth(start.charCodeAt(end));
    }
    // A surrogate pair cut in two is written as an escape: measured again, and shortened again if need be.
    written = JSON.stringify(start.slice(0, end)).length - 2;
  }
  return { start: start.slice(0, end), length: written };
}

/** How many characters JSON.stringify writes for this UTF-16 unit inside a string (a pair's halves one each). */
function writtenWidth(code: number): number {
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return 2;
  return code < 0x20 ? 6 : 1;
}

/**
 * The value itself when it fits `limit`; the start of its JSON with a marker otherwise (its written
 * form within `limit`); and how many characters that keeps.
 */
function cutTo(value: unknown, limit: number): { kept: unknown; length: number } {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return { kept: value, length: 0 };
  if (limit === 0) {
    const truncated = `not kept: the bodies before it in this request hold the ${ENTRY_BODIES_LIMIT_BYTES} characters of JSON the journal keeps per request`;
    return { kept: { truncated, start: '' } satisfies Truncated, length: 0 };
  }
  const size = measure(value, limit);
  if (!size.longerThanBudget) return { kept: value, length: size.length };
  if (size.deep) {
    const { start, length } = startWithin(deepStart(value, limit), limit);
    return { kept: { truncated: `nested more than ${MAX_BODY_DEPTH} levels deep; the first ${start.length} characters of its JSON are kept`, start } satisfies Truncated, length };
  }
  const { start, length } = startWithin(jsonStart(value, limit, size), limit); // the value is longer than the limit (measured above)
  return { kept: { truncated: `more than ${limit} characters of JSON; the first ${start.length} are kept`, start } satisfies Truncated, length };
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

/** A cut start shorter than this is not kept (the entry's budget nearly spent). */
const SHORTEST_START = 1024;

/** Where a body sits in an entry, as a reader finds it: `envelope.data`, `steps[3].body`. */
type Place = string;

/**
 * The entry with every body (request, calls, output, envelope data) cut to BODY_LIMIT_BYTES, and all
 * of them together to ENTRY_BODIES_LIMIT_BYTES as written in the entry's text: the platform's request
 * first, then what it was answered, then the calls in the order they ran. Each text is kept once: a
 * body met again (the same value, or a cut start of the same text) is a marker naming the place that
 * holds it. The envelope's data and the output step's are one value, written once (journal.ts) when
 * kept whole.
 */
export function cappedEntry(entry: JournalEntry): JournalEntry {
  const seen = new Map<unknown, { kept: unknown; place: Place }>();
  const starts = new Map<string, Place>();
  let left = ENTRY_BODIES_LIMIT_BYTES;
  const cutOnce = (value: unknown, place: Place): unknown => {
    const before = seen.get(value);
    // Kept whole, the answer's data is written once for both places; a cut start is never written twice.
    if (before && (isTruncated(before.kept) || (before.place === 'envelope.data' && place.endsWith('.data')))) {
      return isTruncated(before.kept) ? sameAs(before.place) : before.kept;
    }
    let { kept, length } = cutTo(value, Math.min(BODY_LIMIT_BYTES, left));
    // The last few characters of the budget would keep a start too short to read: the body is named as not kept.
    if (isTruncated(kept) && left < SHORTEST_START) ({ kept, length } = cutTo(value, 0));
    if (isTruncated(kept) && kept.start !== '') {
      // Another body's start that holds this one (two calls answered the same text): named, not kept again.
      const start = kept.start;
      const holder = [...starts].find(([earlier]) => earlier.startsWith(start));
      if (holder) return { truncated: `begins as ${holder[1]} does: its first ${start.length} characters are kept there`, start: '' } satisfies Truncated;
      starts.set(start, place);
    }
    left -= length;
    if (!before && typeof value === 'object' && value !== null) seen.set(value, { kept, place });
    return kept;
  };
  const request = { ...entry.request, body: cutOnce(entry.request.body, 'request.body') };
  const { envelope } = entry;
  const answered = envelope && 'data' in envelope ? { ...envelope, data: cutOnce(envelope.data, 'envelope.data') } : envelope;
  const steps = cappedExpressions(entry.steps).map((step, index) => {
    const at = `steps[${index}]`;
    switch (step.step) {
      case 'request': return step.body === undefined ? step : { ...step, body: cutOnce(step.body, `${at}.body`) };
      case 'response': return { ...step, body: cutOnce(step.body, `${at}.body`) };
      case 'output': return { ...step, data: cutOnce(step.data, `${at}.data`) };
      default: return step;
    }
  });
  const drift = entry.drift && entry.drift.length > DRIFT_MARKS_KEPT ? { drift: entry.drift.slice(0, DRIFT_MARKS_KEPT), driftNotKept: entry.drift.length - DRIFT_MARKS_KEPT } : {};
  return { ...entry, request, steps, envelope: answered, ...drift };
}

/** The drift marks an entry keeps (about 100 characters each); the rest are counted (driftNotKept). */
const DRIFT_MARKS_KEPT = 20;

/** What stands for a body whose text the entry already holds at `place`. */
function sameAs(place: Place): Truncated {
  return { truncated: `the same text as ${place}, kept there once`, start: '' };
}
