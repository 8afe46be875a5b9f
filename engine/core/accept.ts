import { randomUUID } from 'node:crypto';
import { OperationFailure } from '../errors';
import type { Deliverer, FirstTry } from '../delivery/delivery';
import type { Logger } from '../log';
import { evaluateAt } from '../mapping/evaluate';
import type { FlowOperation, Mapping, OutboxSpec } from '../mapping/model';
import type { OutboxStore } from '../outbox/store';
import { traceHeadersOf, type TraceContext } from '../trace/context';

/** What accepting an event came to: where it is stored, and with outbox.tryFirstMs how its first try went. */
export interface Accepted {
  readonly id: string;
  readonly orderingKey: string;
  readonly firstTry?: FirstTry;
}

/** Stores an outbox event; the platform's answer waits for this and only this (and, with outbox.tryFirstMs, for the first try's verdict, at most that long). */
export type Accept = (mapping: Mapping, operation: FlowOperation, input: unknown, requestId: string, trace: TraceContext) => Promise<Accepted>;

export function createAcceptor(store: OutboxStore, log: Logger, now: () => number, stored: () => void, tryFirst: Deliverer['tryFirst']): Accept {
  return async (mapping, operation, input, requestId, trace) => {
    const spec = operation.outbox as OutboxSpec;
    let orderingKey = operation.route.operationId;
    if (spec.orderingKey) {
      const value = await evaluateAt(spec.orderingKey, { input }, `${operation.route.operationId}.outbox.orderingKey`);
      // An event without the field (the contract may allow it) is ordered with the operation's other keyless events.
      if (value !== undefined && value !== null && value !== '') orderingKey = typeof value === 'string' ? value : JSON.stringify(value);
    }
    const id = randomUUID();
    // The request's trace goes with the event: its delivery's calls continue it (trace/context.ts).
    const event = { id, mapping: mapping.name, operation: operation.route.operationId, orderingKey, input, requestId, acceptedAt: now(), blocksKeyWhenDead: spec.onDeadLetter === 'block', trace: traceHeadersOf(trace) };
    let firstTry: FirstTry | undefined;
    try {
      // With tryFirstMs the event is durable before its first try starts: a crash during the try loses nothing.
      if (spec.tryFirstMs === undefined) await store.enqueue(event);
      else firstTry = await tryFirst(event, spec.tryFirstMs);
    } catch (error) {
      log.error({ err: error, requestId, store: store.location }, 'the outbox could not store an event; the platform is told it failed');
      throw new OperationFailure('EVENT_NOT_STORED', 'the event could not be stored for delivery; send it again', [{ path: '', message: 'the outbox store is not available' }]);
    }
    stored();
    return { id, orderingKey, ...(firstTry ? { firstTry } : {}) };
  };
}
