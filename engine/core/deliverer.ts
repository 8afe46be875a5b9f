import { createDeliverer, type Deliverer } from '../delivery/delivery';
import { childLogger, type Logger } from '../log';
import type { Masker } from '../mapping/mask';
import type { Mapping, SystemSpec } from '../mapping/model';
import type { Meter } from '../metrics/meter';
import type { AttemptOutcome, OutboxStore } from '../outbox/store';
import { allOf, type TraceObserver } from '../trace/observer';
import type { CallReport } from '../pipeline/fetch-call';
import { deliverEvent } from '../pipeline/run-operation';
import { bodyText } from '../pipeline/judge';
import { deliverPush } from '../pipeline/run-push';
import { OperationFailure } from '../errors';
import { continueTrace, parseTraceparent } from '../trace/context';
import { startScopeSpan, type Tracing } from '../trace/spans';
import type { ConnectionPool } from './connections';

/** The outbox's background delivery, wired to the engine's ERP connections: an operation's event runs its flow, a push's is sent to the platform. */
export function startDeliverer(deps: { store: OutboxStore; mappings: () => readonly Mapping[]; log: Logger; mask: Masker; meter: Meter; now: () => number; pool: ConnectionPool; tracing?: Tracing }): Deliverer {
  const { store, log, meter, pool } = deps;
  return createDeliverer({
    store,
    mappings: deps.mappings,
    log,
    mask: deps.mask,
    now: deps.now,
    deliver: async (mapping, target, event, deadlineMs) => {
      const onCall = (report: CallReport) => meter.erpCall({ mapping: mapping.name, call: report.call, statusClass: report.statusClass, attempts: report.attempts, seconds: report.seconds });
      // The delivery continues the trace of the request that stored the event: the ERP sees that trace id.
      const stored = event.trace && parseTraceparent(event.trace.traceparent, event.trace.tracestate);
      const own = continueTrace(stored);
      const span = deps.tracing && startScopeSpan(deps.tracing, {
        name: `deliver ${event.kind === 'push' ? `push/${event.operation}` : event.operation}`, kind: 'consumer', context: own, parent: stored, links: stored ? [stored] : [],
        attributes: { 'adapter.mapping': mapping.name, 'adapter.event_id': event.id, 'adapter.request_id': event.requestId, 'adapter.attempt': event.attempts },
      }, deps.mask);
      const trace = span?.context ?? own;
      const eventLog = childLogger(log, { requestId: event.requestId, mapping: mapping.name, event: event.id, traceId: trace.traceId });
      // The last answer is kept with the delivered event: support staff see it, and `requests export` replays it.
      let answer: AttemptOutcome | undefined;
      const keepAnswer: TraceObserver = { response: (call, response) => { answer = { error: 'none: delivered', call, status: response.status, body: bodyText(response.body) }; } };
      const common = { log: eventLog, requestId: event.requestId, idempotencyKey: event.id, onCall, trace, observer: allOf(keepAnswer, span?.observer) };
      try {
        if (target.kind === 'push') {
          await deliverPush(target.push, event.input, { ...common, connection: pool.connectionFor(mapping.platform as SystemSpec), deadlineMs: Math.min(deadlineMs, target.push.deadlineMs ?? deadlineMs) });
        } else {
          const { operation } = target;
          await deliverEvent(operation, event.input, undefined, { ...common, connection: pool.connectionFor(mapping.system), deadlineMs: Math.min(deadlineMs, operation.deadlineMs ?? deadlineMs) });
        }
        span?.end({ 'adapter.delivered': true });
        return answer;
      } catch (error) {
        span?.end({ 'adapter.delivered': false }, error instanceof OperationFailure ? error.kind : 'INTERNAL');
        throw error;
      }
    },
    onSettled: (event, verdict) => meter.outboxSettled({ mapping: event.mapping, kind: event.kind, operation: event.operation, verdict }),
  });
}
