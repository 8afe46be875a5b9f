import type { OutboundRequest, OutboundResponse } from '../http/client';
import type { AttemptReport } from '../http/with-retry';
import type { OutcomeRule } from '../mapping/model';

/**
 * Hooks for the CLI's dry-run: each step as it happens. `label` names the call as messages do: the
 * call's name, or `name[i]` for element i of a fan-out (forEach) call. A paginated call sends one
 * request per page; each page's URL shows its page parameters.
 */
export interface TraceObserver {
  /** Before a request is sent; credentials are not on it (they are added on the way out). */
  request?(request: OutboundRequest): void;
  /** Each attempt of a request: status or transport error, and the wait before the next one. */
  attempt?(label: string, report: AttemptReport): void;
  /** The answer used: `attempts` requests reached the ERP for it (0 when `cached`). */
  response?(label: string, response: OutboundResponse, info?: { readonly attempts: number; readonly cached: boolean }): void;
  rule?(label: string, rule: OutcomeRule): void;
  /** Every outcome rule evaluated after a call, matched or not, so a dry run shows why a rule did not fire. */
  ruleChecked?(label: string, index: number, rule: OutcomeRule, matched: boolean): void;
  /** A fan-out element that failed and was left out because the call says onError: skip. */
  skipped?(label: string, message: string): void;
  /** A step the engine takes that is not a call: an event stored in the outbox before its delivery. */
  note?(text: string): void;
  output?(data: unknown): void;
  check?(problems: readonly { path: string; message: string }[]): void;
}
