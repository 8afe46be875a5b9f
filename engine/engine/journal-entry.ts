import type { Envelope } from '../contract/envelope';
import type { AttemptOutcome, EventStatus } from '../outbox/store';
import type { TraceStep } from './trace';

/**
 * One request as the journal keeps it: what the platform sent, every ERP call as the dry-run trace shows
 * it, the outcome rules that matched, the envelope answered and how long it took.
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
  };
  readonly steps: readonly TraceStep[];
  /** The outcome rules that matched (usually one): which rule decided the result. */
  readonly rulesMatched: readonly { readonly call: string; readonly when: string; readonly result: string; readonly at: string }[];
  readonly result: string;
  readonly success: boolean;
  /** Why the engine failed the request, in its words. */
  readonly failure?: { readonly kind: string; readonly message: string };
  readonly envelope: Envelope;
  readonly durationMs: number;
  /**
   * Where each outbox event this request stored stands now (read from the outbox when the entry is
   * read, not kept in the journal): "the platform was told Succeed; did the ERP get it?".
   */
  readonly events?: readonly EventState[];
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

/**
 * Whether the value's JSON is longer than `budget` characters, found without building it and without
 * looking further than the budget: a 30 MB upload costs what 64 KB of it costs. Lengths are close
 * (strings without escapes, numbers as written), which is all a limit needs.
 */
function longerThan(value: unknown, budget: number): boolean {
  let left = budget;
  const visit = (item: unknown): boolean => {
    if (typeof item === 'string') left -= item.length + 2;
    else if (typeof item === 'number' || typeof item === 'boolean') left -= 6;
    else if (item === null || item === undefined) left -= 4;
    else if (Array.isArray(item)) {
      left -= 2;
      for (const element of item) if (left < 0 || visit(element)) return true;
    } else if (typeof item === 'object') {
      left -= 2;
      for (const key in item) {
        left -= key.length + 4;
        if (left < 0 || visit((item as Record<string, unknown>)[key])) return true;
      }
    }
    return left < 0;
  };
  return visit(value);
}

/** The first `limit` characters of the value's JSON, built no further than that. */
function jsonStart(value: unknown, limit: number): string {
  let out = '';
  const write = (item: unknown): void => {
    if (out.length >= limit) return;
    if (typeof item === 'string') out += JSON.stringify(item.slice(0, limit - out.length));
    else if (item === null || item === undefined || typeof item !== 'object') out += JSON.stringify(item ?? null) ?? 'null';
    else if (Array.isArray(item)) {
      out += '[';
      item.forEach((element, index) => { if (out.length < limit) { out += index > 0 ? ',' : ''; write(element); } });
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
  };
  write(value);
  return out.slice(0, limit);
}

/** The value itself when small; the first BODY_LIMIT_BYTES of its JSON with a marker otherwise. */
export function capped(value: unknown): unknown {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (!longerThan(value, BODY_LIMIT_BYTES)) return value;
  return { truncated: `more than ${BODY_LIMIT_BYTES} characters of JSON; the first ${BODY_LIMIT_BYTES} are kept`, start: jsonStart(value, BODY_LIMIT_BYTES) } satisfies Truncated;
}

/** The entry with every body (request, calls, output, envelope data) capped. */
export function cappedEntry(entry: JournalEntry): JournalEntry {
  const steps = entry.steps.map((step) => {
    switch (step.step) {
      case 'request': return step.body === undefined ? step : { ...step, body: capped(step.body) };
      case 'response': return { ...step, body: capped(step.body) };
      case 'output': return { ...step, data: capped(step.data) };
      default: return step;
    }
  });
  const { envelope } = entry;
  return { ...entry, request: { ...entry.request, body: capped(entry.request.body) }, steps, envelope: 'data' in envelope ? { ...envelope, data: capped(envelope.data) } : envelope };
}
