import type { RefusalReason } from '../access/inbound-auth';

/**
 * What the engine reports for metrics, in its own terms. The engine does not know Prometheus: the
 * server's metrics registry implements this interface, tests implement it with arrays, and an engine
 * without a meter reports to nobody.
 */
export interface Meter {
  /** A contract request answered (result is the result name), or one that found no route (result NotFound / MethodNotAllowed). */
  request(report: { readonly mapping: string; readonly operation: string; readonly result: string; readonly seconds: number }): void;
  /** A request turned away at the door: no or wrong credentials. */
  refused(report: { readonly mapping: string; readonly reason: RefusalReason }): void;
  /** One call to the ERP finished: statusClass is 2xx..5xx, or "none" when no answer came (timeout, reset, deadline). */
  erpCall(report: { readonly mapping: string; readonly call: string; readonly statusClass: string; readonly attempts: number; readonly seconds: number }): void;
  /** A record left out of a list answer because it failed the contract check (onInvalidRecord: skip). */
  recordSkipped(report: { readonly mapping: string; readonly operation: string }): void;
  /** A call with a cache: answered from it or not. */
  cache(report: { readonly mapping: string; readonly call: string; readonly hit: boolean }): void;
  /** An OAuth2 token fetch; erp is the token endpoint's origin. */
  tokenFetch(report: { readonly erp: string; readonly ok: boolean }): void;
  /** An outbox event's delivery attempt ended: delivered, to be retried, or dead. kind: event (to the ERP) or push (to the platform). */
  outboxSettled(report: { readonly mapping: string; readonly kind: 'event' | 'push'; readonly operation: string; readonly verdict: 'delivered' | 'retry' | 'dead' | 'refused' }): void;
  /** Requests being served now: +1 when one starts, -1 when it ends. */
  inFlight(delta: 1 | -1): void;
  /** A live ERP answer departed from its recorded answers' shape (kind: missing, type, list-became-object); once per answer and kind. */
  drift(report: { readonly mapping: string; readonly call: string; readonly kind: string }): void;
  /** A shadow candidate ran on a live request's ERP answers: its answer was the same, different, or it could not run (failed). */
  shadow(report: { readonly mapping: string; readonly operation: string; readonly outcome: 'same' | 'different' | 'failed' | 'skipped' }): void;
}

export const NO_METER: Meter = {
  request: () => undefined,
  refused: () => undefined,
  erpCall: () => undefined,
  recordSkipped: () => undefined,
  cache: () => undefined,
  tokenFetch: () => undefined,
  outboxSettled: () => undefined,
  inFlight: () => undefined,
  drift: () => undefined,
  shadow: () => undefined,
};
