import type { Outcome } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import { verdictOf } from '../delivery/delivery';
import { OperationFailure } from '../errors';
import type { DriftMark } from '../drift/watch';
import type { Logger } from '../log';
import type { Mapping } from '../mapping/model';
import type { CallReport } from '../pipeline/fetch-call';
import type { SkippedRecord } from '../pipeline/skip-invalid';
import { allOf, type TraceObserver } from '../trace/observer';
import { outputOrigin, traceRecorder, type TraceStep } from '../trace/steps';
import type { Accept } from './accept';
import type { ConnectionPool } from './connections';
import { dispatch, failureOutcome, type PreparedRoute } from './dispatch';
import { readInput } from './request';
import type { EngineAnswer, EngineParts, Served } from './stage';

/** What running a contract route came to, for the journal and the answer. */
export interface RouteRun {
  readonly outcome: Outcome;
  readonly failure?: EngineAnswer['failure'];
  readonly fault?: unknown;
  readonly delivery?: EngineAnswer['delivery'];
  readonly skipped: readonly SkippedRecord[];
  /** How the ERP's answers departed from their recorded shapes (drift/watch.ts); empty when they fit. */
  readonly drift: readonly DriftMark[];
}

export interface RouteRunDeps {
  readonly prepared: PreparedRoute;
  readonly pool: ConnectionPool;
  readonly accept?: Accept;
  /** Path parameters sent as invalid percent-encoding (routing.ts): the route's input failure names them. */
  readonly undecodable?: readonly string[];
}

/**
 * The read input → run operation stages: the route's input from the request, the mapping's operation
 * on it, and the one error funnel that turns any failure into the route's failure result.
 */
export async function runRoute(parts: EngineParts, served: Served, mapping: Mapping, route: RouteSpec, params: Readonly<Record<string, string>>, steps: TraceStep[] | undefined, requestLog: Logger, deps: RouteRunDeps): Promise<RouteRun> {
  const { request, requestId, options } = served;
  const { meter } = parts;
  let delivery: EngineAnswer['delivery'];
  const skipped: SkippedRecord[] = [];
  const onCall = (report: CallReport) => {
    if (report.cache) meter.cache({ mapping: mapping.name, call: report.call, hit: report.cache === 'hit' });
    // A cache hit is not a call to the ERP.
    if (report.cache !== 'hit') meter.erpCall({ mapping: mapping.name, call: report.call, statusClass: report.statusClass, attempts: report.attempts, seconds: report.seconds });
  };
  const { accept } = deps;
  const drift: DriftMark[] = [];
  const { drift: watch } = parts;
  // A cached answer was checked when it came; an XML answer is kept as its text, which has no fields to
  // compare; an error answer (4xx, 5xx) has its own shape, which the outcome rules deal with.
  const driftObserver: TraceObserver | undefined = watch && {
    response(label, response, info) {
      if (!info?.cached && !info?.xml && response.status >= 200 && response.status < 300) drift.push(...watch.check(mapping.name, label.replace(/\[\d+\]$/, ''), response.body));
    },
  };
  try {
    const { input, problems } = readInput(route, request, params, deps.undecodable);
    const outcome = await dispatch(mapping, deps.prepared, input, problems, {
      connection: () => deps.pool.connectionFor(mapping.system),
      observer: allOf(options.observer, steps && traceRecorder(mapping.system.baseUrl, outputOrigin(mapping, route), steps, options.expressions), driftObserver, served.span?.observer),
      log: requestLog,
      requestId,
      trace: served.trace,
      onCall,
      onSkipped: (record) => {
        skipped.push(record);
        meter.recordSkipped({ mapping: mapping.name, operation: route.operationId });
      },
      abandoned: request.signal,
      accept: accept ? (operation, input) => accept(mapping, operation, input, requestId, served.trace) : undefined,
      delivered: (error) => {
        const verdict = error === undefined ? 'delivered' : verdictOf(error).kind;
        delivery = { verdict, message: error instanceof Error ? error.message : undefined };
      },
    });
    return { outcome, delivery, skipped, drift };
  } catch (error) {
    if (error instanceof OperationFailure) {
      requestLog.warn({ operation: route.operationId, failure: error.kind, problems: error.problems }, error.message);
      return { outcome: failureOutcome(route, error), failure: { kind: error.kind, message: error.message, problems: error.problems }, delivery, skipped, drift };
    }
    // One error funnel: a fault is logged with its stack, never shown to the platform.
    const internal = new OperationFailure('INTERNAL', 'internal engine error; see the adapter log');
    requestLog.error({ err: error, operation: route.operationId }, 'engine fault while serving a request');
    return { outcome: failureOutcome(route, internal), failure: { kind: internal.kind, message: internal.message, problems: internal.problems }, fault: error, delivery, skipped, drift };
  }
}
