import { createDeliverer, type Deliverer } from '../delivery/delivery';
import type { Logger } from '../log';
import type { Masker } from '../mapping/mask';
import type { Mapping, SystemSpec } from '../mapping/model';
import type { Meter } from '../metrics/meter';
import type { OutboxStore } from '../outbox/store';
import type { CallReport } from '../pipeline/fetch-call';
import { deliverEvent } from '../pipeline/run-operation';
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
      const common = { log: eventLog, requestId: event.requestId, idempotencyKey: event.id, onCall };
      if (target.kind === 'push') {
        await deliverPush(target.push, event.input, { ...common, connection: pool.connectionFor(mapping.platform as SystemSpec), deadlineMs: Math.min(deadlineMs, target.push.deadlineMs ?? deadlineMs) });
        return;
      }
      const { operation } = target;
      await deliverEvent(operation, event.input, undefined, { ...common, connection: pool.connectionFor(mapping.system), deadlineMs: Math.min(deadlineMs, operation.deadlineMs ?? deadlineMs) });
    },
    onSettled: (event, verdict) => meter.outboxSettled({ mapping: event.mapping, kind: event.kind, operation: event.operation, verdict }),
  });
}
