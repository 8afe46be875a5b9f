import { createDeliverer, type Deliverer } from '../delivery/delivery';
import type { Logger } from '../log';
import type { Masker } from '../mapping/mask';
import type { Mapping, SystemSpec } from '../mapping/model';
import type { Meter } from '../metrics/meter';
import type { AttemptOutcome, OutboxStore } from '../outbox/store';
import type { TraceObserver } from '../trace/observer';
import type { CallReport } from '../pipeline/fetch-call';
import { deliverEvent } from '../pipeline/run-operation';
import { bodyText } from '../pipeline/run-call';
import { deliverPush } from '../pipeline/run-push';
import type { ConnectionPool } from './connections';

/** The outbox's background delivery, wired to the engine's ERP connections: an operation's event runs its flow, a push's is sent to the platform. */
export function startDeliverer(deps: { store: OutboxStore; mappings: () => readonly Mapping[]; log: Logger; mask: Masker; meter: Meter; now: () => number; pool: ConnectionPool }): Deliverer {
  const { store, log, meter, pool } = deps;
  return createDeliverer({
    store,
    mappings: deps.mappings,
    log,
    mask: deps.mask,
    now: deps.now,
    deliver: async (mapping, target, event, deadlineMs) => {
      const eventLog = log.child({ requestId: event.requestId, mapping: mapping.name, event: event.id });
      const onCall = (report: CallReport) => meter.erpCall({ mapping: mapping.name, call: report.call, statusClass: report.statusClass, attempts: report.attempts, seconds: report.seconds });
      // The last answer is kept with the delivered event: support staff see it, and `requests export` replays it.
      let answer: AttemptOutcome | undefined;
      const observer: TraceObserver = { response: (call, response) => { answer = { error: 'none: delivered', call, status: response.status, body: bodyText(response.body) }; } };
      const common = { log: eventLog, requestId: event.requestId, idempotencyKey: event.id, onCall, observer };
      if (target.kind === 'push') {
        await deliverPush(target.push, event.input, { ...common, connection: pool.connectionFor(mapping.platform as SystemSpec), deadlineMs: Math.min(deadlineMs, target.push.deadlineMs ?? deadlineMs) });
        return answer;
      }
      const { operation } = target;
      await deliverEvent(operation, event.input, undefined, { ...common, connection: pool.connectionFor(mapping.system), deadlineMs: Math.min(deadlineMs, operation.deadlineMs ?? deadlineMs) });
      return answer;
    },
    onSettled: (event, verdict) => meter.outboxSettled({ mapping: event.mapping, kind: event.kind, operation: event.operation, verdict }),
  });
}
