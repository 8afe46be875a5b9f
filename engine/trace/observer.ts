import type { OutboundRequest, OutboundResponse } from '../http/client';
import type { AttemptReport } from '../http/with-retry';
import type { LocatedExpression, OutcomeRule } from '../mapping/model';

/**
 * Hooks for the CLI's dry-run: each step as it happens. `label` names the call as messages do: the
 * call's name, or `name[i]` for element i of a fan-out (forEach) call. A paginated call sends one
 * request per page; each page's URL shows its page parameters.
 */
export interface TraceObserver {
  /**
   * Before a request is sent; credentials and the trace headers are not on it (they are added on the way
   * out). `label` names the call as the other hooks do (absent from callers that send no fan-out).
   */
  request?(request: OutboundRequest, label?: string): void;
  /** Each attempt of a request: status or transport error, and the wait before the next one. */
  attempt?(label: string, report: AttemptReport): void;
  /** The answer used: `attempts` requests reached the ERP for it (0 when `cached`). */
  response?(label: string, response: OutboundResponse, info?: { readonly attempts: number; readonly cached: boolean; readonly repeated?: readonly string[]; readonly xml?: boolean }): void;
  rule?(label: string, rule: OutcomeRule): void;
  /** Every outcome rule evaluated after a call, matched or not, so a dry run shows why a rule did not fire. */
  ruleChecked?(label: string, index: number, rule: OutcomeRule, matched: boolean): void;
  /** A fan-out element that failed and was left out because the call says onError: skip. */
  skipped?(label: string, message: string): void;
  /** A step the engine takes that is not a call: an event stored in the outbox before its delivery. */
  note?(text: string): void;
  /** The event is stored in the outbox (durable): its id and ordering key, for support staff to follow it. */
  stored?(eventId: string, orderingKey: string): void;
  output?(data: unknown): void;
  /**
   * A mapping expression evaluated (`what`: its place, as failures name it): the document it read and
   * the value it gave. Only dry runs and the studio ask for it (RunOptions.expressions): it is one more
   * object per expression, which the serving path does not pay for.
   */
  expression?(what: string, expression: LocatedExpression, context: unknown, value: unknown): void;
  check?(problems: readonly { path: string; message: string }[]): void;
}

/** One observer that tells each of the given ones every step (the journal's recorder and a caller's own). */
export function allOf(...given: readonly (TraceObserver | undefined)[]): TraceObserver | undefined {
  const list = given.filter((observer): observer is TraceObserver => observer !== undefined);
  if (list.length <= 1) return list[0];
  return {
    request: (request, label) => list.forEach((o) => o.request?.(request, label)),
    attempt: (label, report) => list.forEach((o) => o.attempt?.(label, report)),
    response: (label, response, info) => list.forEach((o) => o.response?.(label, response, info)),
    rule: (label, rule) => list.forEach((o) => o.rule?.(label, rule)),
    ruleChecked: (label, index, rule, matched) => list.forEach((o) => o.ruleChecked?.(label, index, rule, matched)),
    skipped: (label, message) => list.forEach((o) => o.skipped?.(label, message)),
    note: (text) => list.forEach((o) => o.note?.(text)),
    stored: (eventId, orderingKey) => list.forEach((o) => o.stored?.(eventId, orderingKey)),
    output: (data) => list.forEach((o) => o.output?.(data)),
    // Left undefined unless one of them records expressions, so the serving path calls nothing per expression.
    expression: list.some((o) => o.expression) ? (what, expression, context, value) => list.forEach((o) => o.expression?.(what, expression, context, value)) : undefined,
    check: (problems) => list.forEach((o) => o.check?.(problems)),
  };
}
