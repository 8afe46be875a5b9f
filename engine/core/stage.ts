import type { AsyncLocalStorage } from 'node:async_hooks';
import type { Envelope, Outcome } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import type { FailureKind, Problem } from '../errors';
import type { Logger } from '../log';
import type { Masker } from '../mapping/mask';
import type { Mapping, PushSpec } from '../mapping/model';
import type { Verdict } from '../delivery/delivery';
import type { DriftWatch } from '../drift/watch';
import type { JournalEntry } from '../journal/journal-entry';
import type { Journal } from '../journal/journal';
import type { Meter } from '../metrics/meter';
import type { OutboxStore } from '../outbox/store';
import type { SkippedRecord } from '../pipeline/skip-invalid';
import type { PushBody } from '../pushes/push-request';
import type { TraceContext } from '../trace/context';
import type { TraceObserver } from '../trace/observer';
import type { ScopeSpan } from '../trace/spans';
import type { TraceStep } from '../trace/steps';
import type { EngineRequest } from './request';

/**
 * What the stages of a request (route → authenticate → read input → run the operation or the push →
 * journal → answer, each in its own file of engine/core/) share: the answer they build, and the
 * parts of the engine createEngine wires once for all requests.
 */

/** Milliseconds from a monotonic clock; tests inject a fake one. */
export interface Clock {
  now(): number;
}

export interface RunOptions {
  /** Sees every step of the request as it happens. */
  readonly observer?: TraceObserver;
  /** Return every step of the request (the dry-run trace) in the answer, even when the journal keeps none. */
  readonly trace?: boolean;
  /**
   * Record each mapping expression with what it read and gave in the steps (dry runs and the studio's
   * runs); a served request records none, so the serving path does no per-expression work for it.
   */
  readonly expressions?: boolean;
}

/** What a request gave: the HTTP answer, and for a contract route what happened on the way. */
export interface EngineAnswer {
  readonly requestId: string;
  /** 200 with an envelope for every contract route; 404 or 405 with `{ error }` for anything else. */
  readonly status: number;
  readonly body: Envelope | { readonly error: string } | PushBody;
  readonly headers: Readonly<Record<string, string>>;
  readonly mapping?: Mapping;
  readonly route?: RouteSpec;
  /** A push endpoint's request (POST /push/<name>): the push it reached, and what it came to (Accepted, Duplicate, Invalid, ...). */
  readonly push?: PushSpec;
  readonly pushResult?: string;
  readonly outcome?: Outcome;
  readonly envelope?: Envelope;
  /** Why the outcome is a failure, in the engine's words (also in validationStatus). */
  readonly failure?: { readonly kind: FailureKind; readonly message: string; readonly problems: readonly Problem[] };
  /** A fault inside the engine itself (a bug): logged, answered as the route's failure, kept for the CLI's bug report. */
  readonly fault?: unknown;
  /**
   * Records left out of a list answer (onInvalidRecord: skip), each with its number and problems; they
   * are logged and counted already. Here for whoever keeps a record of requests (a request journal).
   */
  readonly skipped?: readonly SkippedRecord[];
  /** `outbox: 'inline'` only: what the background delivery of an outbox event (or a push's events) would do. */
  readonly delivery?: { readonly verdict: Verdict['kind']; readonly message?: string };
  /** Every step of a contract request or a push, unmasked (mask with maskSteps before showing); with `trace` or a journal. */
  readonly steps?: readonly TraceStep[];
  /**
   * The journal's entry of this request (unmasked), built when first asked; undefined when the journal
   * keeps none. A success past the journal's CPU budget has one that the journal did not keep (journal.ts).
   */
  readonly entry?: () => JournalEntry;
  readonly durationMs: number;
}

/** The request being served, for log lines written outside its code path (an unhandled rejection). */
export interface RequestContext {
  readonly requestId: string;
  readonly mapping?: string;
  readonly operation?: string;
  readonly method: string;
  readonly path: string;
}

/** The parts of one engine every stage reads; createEngine builds them once. */
export interface EngineParts {
  readonly log: Logger;
  readonly meter: Meter;
  readonly clock: Clock;
  readonly journal: Journal;
  /** The outbox store; undefined for `outbox: 'inline'` and without one. */
  readonly store?: OutboxStore;
  readonly context: AsyncLocalStorage<RequestContext>;
  /** Checks live ERP answers against the shapes their recordings taught (undefined: not watched). */
  readonly drift?: DriftWatch;
  /** The engine's secrets: masked in every text the platform is answered (an ERP's message may quote them). */
  readonly mask: Masker;
}

/** One request on its way through the stages. */
export interface Served {
  readonly request: EngineRequest;
  readonly requestId: string;
  /** clock.now() when it came. */
  readonly started: number;
  /** Wall-clock milliseconds when it came (the journal's time). */
  readonly startedAt: number;
  readonly options: RunOptions;
  /** The request's span: the platform's (or the ERP's, on a push) traceparent continued, or a new trace. */
  readonly trace: TraceContext;
  /** Its exported span, whose observer records the ERP calls; only when OTEL_* asks for export. */
  readonly span?: ScopeSpan;
}

/** Steps are recorded when the caller asks for the trace or the journal keeps requests. */
export function stepsFor(parts: EngineParts, served: Served): TraceStep[] | undefined {
  return served.options.trace || parts.journal.size > 0 ? [] : undefined;
}
