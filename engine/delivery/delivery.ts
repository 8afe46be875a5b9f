import { randomUUID } from 'node:crypto';
import { OperationFailure } from '../errors';
import type { Logger } from '../log';
import type { Masker } from '../mapping/mask';
import type { CallSpec, FlowOperation, Mapping, OutboxSpec, PushSpec } from '../mapping/model';
import type { AttemptOutcome, NewEvent, OutboxStore, StoredEvent } from '../outbox/store';

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
  | { readonly kind: 'dead'; readonly outcome: AttemptOutcome }
  /** A final "no" to a first try (outbox.tryFirstMs) while the platform waited: the platform is answered it, nobody else need act. */
  | { readonly kind: 'refused'; readonly outcome: AttemptOutcome };

/** How a first try (outbox.tryFirstMs) ended for the platform's answer. */
export type FirstTry =
  /** The ERP took it in time: the platform gets the route's success, the event is delivered. */
  | { readonly answered: 'delivered'; readonly event: StoredEvent }
  /** The ERP refused it for good in time: the platform gets this failure, the event is settled refused. */
  | { readonly answered: 'refused'; readonly event: StoredEvent; readonly failure: OperationFailure }
  /** No verdict for the platform: it gets the route's success and the event is delivered in the background. */
  | { readonly answered: false; readonly event: StoredEvent; readonly why: string };

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
  /**
   * Stores the event (durable when it resolves, as enqueue) and, when it is first of its key, delivers it
   * at once under a lease of this deliverer, so no other claim sends it meanwhile. Resolves with the
   * ERP's verdict when it comes within `waitMs` (and is final), else at `waitMs` while the attempt goes
   * on and settles the event as a background delivery would. Rejects only when the store does.
   */
  tryFirst(event: NewEvent, waitMs: number): Promise<FirstTry>;
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
    } else if (verdict.kind === 'refused') {
      await deps.store.refused(event.id, owner, at, verdict.outcome);
      deps.log.info({ event: event.id, kind: event.kind, requestId: event.requestId, mapping: event.mapping, operation: event.operation, status: verdict.outcome.status, error: verdict.outcome.error }, 'outbox event refused by the ERP on its first try; the platform was answered the refusal');
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

  /** One delivery attempt of a leased event: its verdict, and the failure it came from (none when delivered). */
  async function attempt(event: StoredEvent, found: Found, leaseMs: number): Promise<{ verdict: Verdict; failure?: unknown }> {
    try {
      const answer = await deps.deliver(found.mapping, found.target, event, leaseMs - LEASE_MARGIN_MS);
      return { verdict: { kind: 'delivered', answer: answer ?? undefined } };
    } catch (error) {
      if (!(error instanceof OperationFailure)) deps.log.error({ err: error, event: event.id }, 'engine fault while delivering an outbox event');
      return { verdict: verdictOf(error), failure: error };
    }
  }

  async function deliverOne(event: StoredEvent, leaseMs: number): Promise<void> {
    const found = findTarget(deps.mappings(), event);
    if (!found) {
      // A reload removed the mapping or changed the operation: keep the event until it is back, or support staff decide.
      const what = event.kind === 'push' ? `the push ${event.operation} to the platform` : `${event.operation} through the outbox`;
      await deps.store.retryLater(event.id, owner, now() + 60_000, { error: `mapping "${event.mapping}" no longer delivers ${what}` });
      return;
    }
    await settle(event, (await attempt(event, found, leaseMs)).verdict, found.outbox.maxAgeMs);
  }

  /** Work the deliverer waits for when it stops (a drain): deliveries and first tries under way. */
  function track(work: Promise<unknown>, event: StoredEvent): Promise<void> {
    const tracked = work.then(() => undefined, (error: unknown) => deps.log.error({ err: error, event: event.id }, 'the outbox store failed while settling a delivery; the event is delivered again after its lease'));
    running.add(tracked);
    return tracked.finally(() => running.delete(tracked));
  }

  /** How long a claim lasts: the longest delivery any served operation or push can take. */
  const currentLeaseMs = () => Math.max(LEASE_MARGIN_MS * 2, ...deliverables(deps.mappings()).map(leaseFor));

  async function runOnce(): Promise<number> {
    const leaseMs = currentLeaseMs();
    const events = await deps.store.claimDue({ now: now(), limit: batch, leaseMs, owner });
    await Promise.all(events.map((event) => track(deliverOne(event, leaseMs), event)));
    return events.length;
  }

  async function tryFirst(given: NewEvent, waitMs: number): Promise<FirstTry> {
    const leaseMs = currentLeaseMs();
    const { event, claimed } = await deps.store.enqueueClaimed(given, { now: now(), leaseMs, owner });
    if (!claimed) {
      // Order holds: an earlier event of its key goes first, and this one after it, in the background.
      return { answered: false, event, why: 'an earlier event of its ordering key is still pending: it is delivered after that one, in the background' };
    }
    const found = findTarget(deps.mappings(), event);
    if (!found) {
      // A reload between the request and here: the lease is let go at once, and the background delivery decides.
      await deps.store.retryLater(event.id, owner, now(), { error: `mapping "${event.mapping}" no longer delivers ${event.operation} through the outbox` });
      return { answered: false, event, why: 'the mapping changed while the event was stored: delivered in the background' };
    }
    let late = false;
    let deadline: NodeJS.Timeout | undefined;
    const tried = attempt(event, found, leaseMs).then(async ({ verdict, failure }): Promise<FirstTry> => {
      // Decided when the verdict comes: a final "no" in time is the platform's answer, not a dead letter.
      const inTime = !late;
      clearTimeout(deadline);
      const final = inTime && verdict.kind === 'dead' && failure instanceof OperationFailure;
      await settle(event, final ? { kind: 'refused', outcome: verdict.outcome } : verdict, found.outbox.maxAgeMs);
      if (final) return { answered: 'refused', event, failure };
      if (inTime && verdict.kind === 'delivered') return { answered: 'delivered', event };
      return { answered: false, event, why: inTime ? `the ERP could not take it now (${verdict.kind === 'retry' ? verdict.outcome.error : verdict.kind}): delivered in the background, retried with backoff` : 'no verdict yet' };
    });
    void track(tried, event);
    const waited = new Promise<FirstTry>((resolve) => {
      deadline = setTimeout(() => {
        late = true;
        resolve({ answered: false, event, why: `the ERP gave no verdict within outbox.tryFirstMs (${waitMs} ms): the attempt goes on, and delivery continues in the background` });
      }, waitMs);
    });
    // A store failure while settling is logged by track(); the platform then hears the delivery goes on.
    return Promise.race([tried.catch((): FirstTry => ({ answered: false, event, why: 'the outcome could not be kept; the event is delivered again after its lease' })), waited]);
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
    tryFirst,
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
