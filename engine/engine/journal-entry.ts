import type { Envelope } from '../contract/envelope';
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

/** The value itself when small; its first BODY_LIMIT_BYTES of JSON with a marker otherwise. */
export function capped(value: unknown): unknown {
  // Strings and scalars are measured without serialising; only objects need JSON to be measured.
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length <= BODY_LIMIT_BYTES) return value;
  return { truncated: `${text.length} characters; the first ${BODY_LIMIT_BYTES} are kept`, start: text.slice(0, BODY_LIMIT_BYTES) } satisfies Truncated;
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
