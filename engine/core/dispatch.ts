import type { Outcome } from '../contract/envelope';
import { firstResultOf, type ResultName, type RouteSpec } from '../contract/routes';
import type { Validator } from '../contract/schema-registry';
import { FAILURE_RESULTS, OperationFailure, type FailureKind, type Problem } from '../errors';
import type { ErpConnection } from '../http/connection';
import type { Logger } from '../log';
import type { FlowOperation, Mapping } from '../mapping/model';
import { runFileOperation } from '../files/run-file';
import { deliverEvent, runFlow } from '../pipeline/run-operation';
import type { CallReport } from '../pipeline/fetch-call';
import type { SkippedRecord } from '../pipeline/skip-invalid';
import type { TraceContext } from '../trace/context';
import type { TraceObserver } from '../trace/observer';

/** Everything about one route that is prepared once per engine: its compiled contract checks. */
export interface PreparedRoute {
  readonly route: RouteSpec;
  readonly checkInput?: Validator;
  readonly checkData?: Validator;
}

export interface DispatchDeps {
  /** The connection of the mapping's ERP; asked for only by operations that call it. */
  readonly connection: () => ErpConnection;
  readonly observer?: TraceObserver;
  readonly log?: Logger;
  readonly requestId?: string;
  /** The request's span: its ERP calls carry children of it. */
  readonly trace?: TraceContext;
  readonly onCall?: (report: CallReport) => void;
  readonly onSkipped?: (record: SkippedRecord) => void;
  /**
   * Stores an outbox operation's event durably; the platform is answered once it resolves. Absent: the
   * engine runs without a store (dry-run, test) and delivers the event inline, answering what the
   * platform would get and reporting the delivery to `delivered`.
   */
  readonly accept?: (operation: FlowOperation, input: unknown) => Promise<{ readonly id: string; readonly orderingKey: string }>;
  /** Aborted when the platform has closed the connection. */
  readonly abandoned?: AbortSignal;
  readonly delivered?: (error: unknown) => void;
}

/**
 * The failure catalogue names results by text (engine/errors is a base module and cannot see the
 * contract); here, where both meet, the compiler checks every name is a result of the contract.
 */
const FAILURE_RESULT_NAMES: Readonly<Record<FailureKind, readonly ResultName[]>> = FAILURE_RESULTS;

/** The result name for a failure on this route: the first name of the failure's list the route has. */
export function failureOutcome(route: RouteSpec, failure: OperationFailure): Outcome {
  const resultName = firstResultOf(route, ...FAILURE_RESULT_NAMES[failure.kind]);
  // An ERP's refusal carries its own words to the platform, as an outcome rule's message would.
  return failure.externalMessage !== undefined ? { resultName, problems: failure.problems, externalMessage: failure.externalMessage } : { resultName, problems: failure.problems };
}

/**
 * The stages of one request after routing: check the input, dispatch on the operation's mode, map.
 * Throws OperationFailure for anything that should become a failure result.
 */
export async function dispatch(mapping: Mapping, prepared: PreparedRoute, input: unknown, inputProblems: readonly Problem[], deps: DispatchDeps): Promise<Outcome> {
  const { route } = prepared;
  const problems = inputProblems.length > 0
    ? inputProblems
    : ((await prepared.checkInput?.inSlices(input)) ?? []).map((p) => ({ path: `${route.inputSource}${p.path === '/' ? '' : p.path}`, message: p.message }));
  if (problems.length > 0) throw new OperationFailure('INPUT_INVALID', `the request does not match the contract: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, problems);

  const operation = mapping.operations.get(route.operationId);
  if (!operation) {
    return route.unmappedDefault ? { resultName: route.successResult, data: route.unmappedDefault.data } : { resultName: 'AdapterNotDefined' };
  }
  switch (operation.mode) {
    case 'static':
      return { resultName: route.successResult, data: operation.data };
    case 'acknowledge':
      return { resultName: route.successResult };
    case 'flow':
      if (operation.outbox) return outboxAnswer(mapping, operation, input, prepared, deps);
      return runFlow(operation, input, prepared.checkData, { connection: deps.connection(), observer: deps.observer, log: deps.log, requestId: deps.requestId, trace: deps.trace, onCall: deps.onCall, onSkipped: deps.onSkipped, abandoned: deps.abandoned });
    case 'file':
      return runFileOperation(operation, input, prepared.checkData, mapping.system.emptyValues);
  }
}

/** delivery: outbox: the platform's answer is success once the event is stored; the ERP gets it later. */
async function outboxAnswer(mapping: Mapping, operation: FlowOperation, input: unknown, prepared: PreparedRoute, deps: DispatchDeps): Promise<Outcome> {
  const success: Outcome = { resultName: prepared.route.successResult };
  if (deps.accept) {
    const stored = await deps.accept(operation, input);
    deps.observer?.stored?.(stored.id, stored.orderingKey);
    return success;
  }
  deps.observer?.note?.(`delivery: outbox: the event is stored, the platform is answered ${prepared.route.successResult} at once, and the calls below run in the background (retried while the ERP cannot take it)`);
  try {
    await deliverEvent(operation, input, prepared.checkData, { connection: deps.connection(), observer: deps.observer, log: deps.log, requestId: deps.requestId, trace: deps.trace, onCall: deps.onCall });
    deps.delivered?.(undefined);
  } catch (error) {
    deps.delivered?.(error);
  }
  return success;
}
