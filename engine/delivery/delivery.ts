import { randomUUID } from 'node:crypto';
import { OperationFailure } from '../errors';
import type { Logger } from '../log';
import type { Masker } from '../mapping/mask';
import type { CallSpec, FlowOperation, Mapping, OutboxSpec, PushSpec } from '../mapping/model';
import type { AttemptOutcome, OutboxStore, StoredEvent } from '../outbox/store';

/**
 * Delivers the outbox's events in the background: the platform's events to the ERP through each
 * operation's normal calls, the ERP's pushes to the platform through each push's calls.
 * An answer that says "not now" (no answer, 408, 429, 5xx, a deadline, a token endpoint down) is retried
 * with backoff until the operation's maxAgeMs; an answer that says "never" (400, 409, 422, an input the
 * mapping cannot send) goes to the dead letters at once, with the ERP's answer kept for support staff.
 */

export type Verdict =
  | { readonly kind: 'delivered'; readonly answer?: AttemptOutcome }
  | { readonly kind: 'retry'; readonly outcome: AttemptOutcome; readonly retryAfterMs?: number }
  | { readonly kind: 'dead'; readonly outcome: AttemptOutcome };

const RETRIED_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;

/** What a failed delivery attempt means for the event. */
export function verdictOf(error: unknown): Verdict {
  if (!(error instanceof OperationFailure)) return { kind: 'retry', outcome: { error: 'internal engine error while delivering; see the adapter log' } };
  const outcome: AttemptOutcome = { error: error.message, call: error.answer?.call, status: error.answer?.status, body: error.answer?.body };
  switch (error.kind) {
    case 'ERP_UNREACHABLE':
    case 'DEADLINE_EXCEEDED':
    case 'AUTH_FAILED':
      return { kind: 'retry', outcome };
    case 'ERP_ERROR_STATUS':
      return error.answer && RETRIED_STATUS(error.answer.status) ? { kind: 'retry', outcome, retryAfterMs: error.answer.retryAfterMs } : { kind: 'dead', outcome };
    case 'ERP_REFUSED':
      // The mapping's refusal rule says whether "no" may become "yes" later (a lock, a busy period); by default it is final.
      return error.refusal?.retryable ? { kind: 'retry', outcome } : { kind: 'dead', outcome };
    default:
      return { kind: 'dead', outcome };
  }
}

/** 1 s, 2 s, 4 s … at most 5 minutes, with jitter so events of many keys do not come back together. */
function backoffMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(300_000, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.5 + random() / 2));
}

/** What one stored event is delivered by: an outbox operation (to the ERP) or a push (to the platform). */
type DeliveryTarget =
  | { readonly kind: 'event'; readonly operation: FlowOperation }
  | { readonly kind: 'push'; readonly push: PushSpec };

/** How long a claim lasts: the longest one delivery of the operation (or push) can take, and a margin. */
function leaseFor(operation: { readonly calls: readonly CallSpec[]; readonly deadlineMs?: number }): number {
  const calls = operation.calls.reduce((sum, call) => sum + call.timeoutMs * call.retry.attempts + (call.retry.attempts - 1) * call.retry.maxDelayMs, 0);
  return Math.min(operation.deadlineMs ?? calls, calls) + LEASE_MARGIN_MS;
}

const LEASE_MARGIN_MS = 5000;
/** Delivered and dropped events are kept a week for support staff, then purged (checked hourly). */
const KEEP_SETTLED_MS = 7 * 86_400_000;
const PURGE_EVERY_MS = 3_600_000;

export interface DeliveryDeps {
  readonly store: OutboxStore;
  /** The mappings served now (a reload changes them). */
  readonly mappings: () => readonly Mapping[];
  /** Sends one event through its operation's (or push's) calls; throws OperationFailure as a request would. */
  /** Resolves with the receiver's answer to the last call (kept with the event), or nothing. */
  readonly deliver: (mapping: Mapping, target: DeliveryTarget, event: StoredEvent, deadlineMs: number) => Promise<AttemptOutcome | void>;
  readonly log: Logger;
  /** The secret values masked in the receiver's answer before it is stored (an ERP may echo the credentials it was sent). */
  readonly mask: Masker;
  readonly now?: () => number;
  readonly onSettled?: (event: StoredEvent, verdict: Verdict['kind']) => void;
  /** Events delivered at once (the connection's maxConcurrency still limits the ERP calls). */
  readonly batch?: number;
}

export interface Deliverer {
  /** Claims what is due and delivers it; resolves with how many events were claimed. */
  runOnce(): Promise<number>;
  /** Runs until stop(): at once when woken (an event was accepted), else every pollMs. */
  start(pollMs?: number): void;
  wake(): void;
  /** Stops claiming and waits for the deliveries under way. */
  stop(): Promise<void>;
}

interface Found {
  readonly mapping: Mapping;
  readonly target: DeliveryTarget;
  readonly outbox: OutboxSpec;
}

function findTarget(mappings: readonly Mapping[], event: StoredEvent): Found | undefined {
  const mapping = mappings.find((candidate) => candidate.name === event.mapping);
  if (!mapping) return undefined;
  if (event.kind === 'push') {
    const push = mapping.pushes.get(event.operation);
    return push && mapping.platform ? { mapping, target: { kind: 'push', push }, outbox: push.outbox } : undefined;
  }
  const operation = mapping.operations.get(event.operation);
  return operation?.mode === 'flow' && operation.outbox ? { mapping, target: { kind: 'event', operation }, outbox: operation.outbox } : undefined;
}

/** Everything the served mappings deliver through the outbox, for the lease of a claim. */
function deliverables(mappings: readonly Mapping[]): { readonly calls: readonly CallSpec[]; readonly deadlineMs?: number }[] {
  return mappings.flatMap((mapping) => [
    ...[...mapping.operations.values()].filter((operation): operation is FlowOperation => operation.mode === 'flow' && operation.outbox !== undefined),
    ...mapping.pushes.values(),
  ]);
}

export function createDeliverer(deps: DeliveryDeps): Deliverer {
  const owner = `${process.pid}-${randomUUID()}`;
  const now = deps.now ?? Date.now;
  const batch = deps.batch ?? 16;
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let woken = false;
  let loop: Promise<void> | undefined;

  const masked = (outcome: AttemptOutcome): AttemptOutcome => ({ ...outcome, error: deps.mask.text(outcome.error), ...(outcome.body === undefined ? {} : { body: deps.mask.text(outcome.body) }) });

  async function settle(event: StoredEvent, given: Verdict, maxAgeMs: number): Promise<void> {
    const verdict: Verdict = given.kind === 'delivered' ? { kind: 'delivered', answer: given.answer && masked(given.answer) } : { ...given, outcome: masked(given.outcome) };
    const at = now();
    if (verdict.kind === 'delivered') {
      await deps.store.delivered(event.id, owner, at, verdict.answer);
    } else if (verdict.kind === 'retry' && at - event.acceptedAt + backoffMs(event.attempts) < maxAgeMs) {
      const wait = Math.max(verdict.retryAfterMs ?? 0, backoffMs(event.attempts));
      await deps.store.retryLater(event.id, owner, at + wait, verdict.outcome);
      deps.log.warn({ event: event.id, kind: event.kind, requestId: event.requestId, mapping: event.mapping, operation: event.operation, attempts: event.attempts, retryInMs: wait, error: verdict.outcome.error }, 'outbox delivery failed; retrying later');
    } else {
      const why = verdict.kind === 'retry' ? { ...verdict.outcome, error: `not delivered within maxAgeMs (${maxAgeMs} ms): ${verdict.outcome.error}` } : verdict.outcome;
      await deps.store.dead(event.id, owner, at, why);
      deps.log.error({ event: event.id, kind: event.kind, requestId: event.requestId, mapping: event.mapping, operation: event.operation, attempts: event.attempts, status: why.status, error: why.error }, 'outbox event is dead: it waits for support staff (adapter-engine outbox show/retry/drop)');
    }
    deps.onSettled?.(event, verdict.kind === 'retry' && at - event.acceptedAt + backoffMs(event.attempts) >= maxAgeMs ? 'dead' : verdict.kind);
  }

  async function deliverOne(event: StoredEvent, leaseMs: number): Promise<void> {
    const found = findTarget(deps.mappings(), event);
    if (!found) {
      // A reload removed the mapping or changed the operation: keep the event until it is back, or support staff decide.
      const what = event.kind === 'push' ? `the push ${event.operation} to the platform` : `${event.operation} through the outbox`;
      await deps.store.retryLater(event.id, owner, now() + 60_000, { error: `mapping "${event.mapping}" no longer delivers ${what}` });
      return;
    }
    let verdict: Verdict;
    try {
      const answer = await deps.deliver(found.mapping, found.target, event, leaseMs - LEASE_MARGIN_MS);
      verdict = { kind: 'delivered', answer: answer ?? undefined };
    } catch (error) {
      verdict = verdictOf(error);
      if (!(error instanceof OperationFailure)) deps.log.error({ err: error, event: event.id }, 'engine fault while delivering an outbox event');
    }
    await settle(event, verdict, found.outbox.maxAgeMs);
  }

  async function runOnce(): Promise<number> {
    const leaseMs = Math.max(LEASE_MARGIN_MS * 2, ...deliverables(deps.mappings()).map(leaseFor));
    const events = await deps.store.claimDue({ now: now(), limit: batch, leaseMs, owner });
    await Promise.all(events.map((event) => {
      const work = deliverOne(event, leaseMs).catch((error: unknown) => deps.log.error({ err: error, event: event.id }, 'the outbox store failed while settling a delivery; the event is delivered again after its lease'));
      running.add(work);
      return work.finally(() => running.delete(work));
    }));
    return events.length;
  }

  let purgedAt = 0;
  async function cycle(pollMs: number): Promise<void> {
    while (!stopped) {
      woken = false;
      let claimed = 0;
      try {
        if (now() - purgedAt > PURGE_EVERY_MS) {
          purgedAt = now();
          const removed = await deps.store.purge(now() - KEEP_SETTLED_MS);
          if (removed > 0) deps.log.info({ removed }, 'outbox: removed delivered and dropped events older than 7 days');
        }
        claimed = await runOnce();
      } catch (error) {
        deps.log.error({ err: error, store: deps.store.location }, 'the outbox store cannot be read; delivery pauses and tries again');
      }
      if (stopped) return;
      // Something was claimed: its settling may have made the next event of its key due, so look again at once.
      // Only an empty claim sleeps, until the poll interval or a wake-up (an event accepted here).
      if (claimed > 0 || woken) continue;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, pollMs);
        wakeUp = resolve;
      });
    }
  }
  let wakeUp: () => void = () => undefined;

  return {
    runOnce,
    start(pollMs = 500) {
      if (!stopped) return;
      stopped = false;
      loop = cycle(pollMs);
    },
    wake() {
      woken = true;
      clearTimeout(timer);
      wakeUp();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wakeUp();
      await loop;
      await Promise.all(running);
    },
  };
}
