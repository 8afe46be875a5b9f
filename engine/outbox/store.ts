/**
 * The outbox: events the engine has accepted from the platform and must deliver to the ERP. The store is
 * the only thing that makes "accepted" mean "will be delivered": `enqueue` resolves only once the event
 * is durable (synced to disk, or committed). Two stores implement this interface, SQLite (one machine)
 * and PostgreSQL (replicas); the same behaviour tests run against both.
 *
 * Order: events with the same mapping and ordering key are delivered one after another in acceptance
 * order (`seq`): `claimDue` never hands out an event while an earlier event of its key is still pending
 * (claimed or not), nor while an earlier one is dead and blocks its key. Different keys go in parallel.
 * A claim is a lease: a process that dies while delivering loses it after `leaseMs`, and another
 * process (or the same one after a restart) delivers the event again. Delivery is at least once.
 */

/** refused: the ERP said no to its first try (outbox.tryFirstMs) and the platform was answered so; settled, not a dead letter. */
export type EventStatus = 'pending' | 'delivered' | 'dead' | 'dropped' | 'refused';

/** event: the platform's, delivered to the ERP; push: the ERP's, delivered to the platform (`operation` is the push's name). */
export type EventKind = 'event' | 'push';

export interface NewEvent {
  /** A UUID; also the idempotency key sent to the receiving system. */
  readonly id: string;
  /** Absent: event. */
  readonly kind?: EventKind;
  readonly mapping: string;
  /** The contract operation id, e.g. ConfirmPutWallPlacement; for a push, the push's name. */
  readonly operation: string;
  readonly orderingKey: string;
  /** The platform's input as the engine read it (JSON). */
  readonly input: unknown;
  readonly requestId: string;
  /** Milliseconds since the epoch. */
  readonly acceptedAt: number;
  /** Whether this event, once dead, holds back the later events of its key (onDeadLetter: block). */
  readonly blocksKeyWhenDead: boolean;
  /** The W3C trace context of the request that stored it: its delivery continues that trace. */
  readonly trace?: { readonly traceparent: string; readonly tracestate?: string };
}

/** What the ERP last answered (status and the start of the body), or why no answer came; for a delivered event, its answer. */
export interface AttemptOutcome {
  readonly error: string;
  /** The call that got this answer (an operation's call, or a push's platform call). */
  readonly call?: string;
  readonly status?: number;
  /** At most a few KB of the body, for support staff. */
  readonly body?: string;
}

export interface StoredEvent extends NewEvent {
  readonly kind: EventKind;
  /** Acceptance order, assigned by the store; increasing. */
  readonly seq: number;
  readonly status: EventStatus;
  /** Delivery attempts started (claims). */
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly last?: AttemptOutcome;
  /** When it was delivered, went dead or was dropped. */
  readonly settledAt?: number;
  /** Why support staff dropped it (kept in the record). */
  readonly dropReason?: string;
}

export interface LeaseOptions {
  readonly now: number;
  readonly leaseMs: number;
  /** Who claims (a process id); only the owner of a lease can settle the event. */
  readonly owner: string;
}

export interface ClaimOptions extends LeaseOptions {
  readonly limit: number;
}

export interface ListFilter {
  readonly status?: readonly EventStatus[];
  readonly kind?: EventKind;
  readonly mapping?: string;
  readonly operation?: string;
  readonly orderingKey?: string;
  /** Only events accepted before this time (ms since the epoch). */
  readonly acceptedBefore?: number;
  /** Default 100. */
  readonly limit?: number;
  /**
   * `accepted` (the default): oldest accepted first, as events wait. `settled`: the latest settled first
   * (delivered, refused, dead or dropped; by settledAt), then those not settled, newest first: what
   * happened to the events lately, which the oldest-first page of a long history never reaches.
   */
  readonly order?: ListOrder;
}

export type ListOrder = 'accepted' | 'settled';

/** The ORDER BY of a list (both stores' SQL reads alike here). */
export function listOrderSql(order: ListOrder | undefined): string {
  return order === 'settled' ? 'ORDER BY settled_at DESC NULLS LAST, seq DESC' : 'ORDER BY seq';
}

export interface KindStats {
  readonly pending: number;
  readonly dead: number;
  readonly delivered: number;
  readonly dropped: number;
  readonly refused: number;
  /** acceptedAt of the oldest pending event. */
  readonly oldestPendingAt?: number;
}

/** Over all events, and apart for the platform's events (to the ERP) and the ERP's pushes (to the platform). */
export interface OutboxStats extends KindStats {
  readonly byKind: Readonly<Record<EventKind, KindStats>>;
}

/** An event's trace context from a store's two columns (both stores keep it so). */
export function traceOf(row: { readonly traceparent: string | null; readonly tracestate: string | null }): Pick<NewEvent, 'trace'> {
  if (row.traceparent === null) return {};
  return { trace: row.tracestate === null ? { traceparent: row.traceparent } : { traceparent: row.traceparent, tracestate: row.tracestate } };
}

export const EVENT_KINDS: readonly EventKind[] = ['event', 'push'];

/** The stats from the store's counts per kind and status and its oldest pending acceptance per kind (both stores read the same rows). */
export function statsOf(counts: readonly { kind: EventKind; status: EventStatus; n: number }[], oldest: readonly { kind: EventKind; at: number }[]): OutboxStats {
  const tally = (kinds: readonly EventKind[]): KindStats => {
    const byStatus: Record<EventStatus, number> = { pending: 0, delivered: 0, dead: 0, dropped: 0, refused: 0 };
    for (const { kind, status, n } of counts) if (kinds.includes(kind)) byStatus[status] += Number(n);
    const times = oldest.filter((row) => kinds.includes(row.kind)).map((row) => Number(row.at));
    return { ...byStatus, ...(times.length === 0 ? {} : { oldestPendingAt: Math.min(...times) }) };
  };
  return { ...tally(EVENT_KINDS), byKind: { event: tally(['event']), push: tally(['push']) } };
}

/** One push of the ERP: its events (one per record or batch) are stored together, or not at all. */
export interface NewPush {
  readonly mapping: string;
  readonly push: string;
  /** What makes two pushes the same one; a push whose key was stored before stores nothing. */
  readonly idempotencyKey: string;
  readonly acceptedAt: number;
  /** kind push, in delivery order, all with the same ordering key. */
  readonly events: readonly NewEvent[];
}

export interface PushReceipt {
  /** The push's event ids; for a resend, those of the push first stored with its key. */
  readonly eventIds: readonly string[];
  /** True when an earlier push had the key: nothing was stored. */
  readonly duplicate: boolean;
}

export interface OutboxStore {
  /** Where the events are kept, for messages (a file path, or the database without its password). */
  readonly location: string;
  /** Durable when it resolves; rejects (disk full, database down) otherwise, and the platform must then get a failure. */
  enqueue(event: NewEvent): Promise<StoredEvent>;
  /**
   * Durable when it resolves, like enqueue; and when no earlier event of its key holds it back, leased at
   * once to `owner` (one attempt started, as claimDue would), so its first try (outbox.tryFirstMs) runs
   * while the platform waits and no deliverer claims it meanwhile. `claimed` false: stored as enqueue.
   */
  enqueueClaimed(event: NewEvent, lease: LeaseOptions): Promise<{ readonly event: StoredEvent; readonly claimed: boolean }>;
  /** Durable when it resolves, like enqueue: every event of the push, and its idempotency key. */
  enqueuePush(push: NewPush): Promise<PushReceipt>;
  /** Due pending events (nextAttemptAt ≤ now, no live lease) that are first of their key, oldest first; each gets a lease and one more attempt. */
  claimDue(options: ClaimOptions): Promise<StoredEvent[]>;
  /** The ERP took it (`answer`: what it answered, kept as the event's last answer). False when `owner` no longer holds the lease (another process has it now). */
  delivered(id: string, owner: string, at: number, answer?: AttemptOutcome): Promise<boolean>;
  /** Try again at `nextAttemptAt`; the lease ends. */
  retryLater(id: string, owner: string, nextAttemptAt: number, outcome: AttemptOutcome): Promise<boolean>;
  /** The ERP refused its first try and the platform was answered the refusal: settled, not a dead letter (no one needs to act). */
  refused(id: string, owner: string, at: number, outcome: AttemptOutcome): Promise<boolean>;
  /** Not retried any more; waits for support staff (retry or drop). */
  dead(id: string, owner: string, at: number, outcome: AttemptOutcome): Promise<boolean>;
  get(id: string): Promise<StoredEvent | undefined>;
  list(filter: ListFilter): Promise<StoredEvent[]>;
  /**
   * A dead event becomes pending again, due now; a pending one waiting for its next attempt is due now
   * (after the attempt in flight, if one is). What the event was, or undefined when it was neither.
   */
  retry(id: string, now: number): Promise<'dead' | 'pending' | undefined>;
  /** Ids that start with `prefix` (at most `limit`), for ids shortened as git's. */
  idsStartingWith(prefix: string, limit: number): Promise<string[]>;
  /** A pending or dead event is given up, with the reason kept. False when it is neither. */
  drop(id: string, reason: string, now: number): Promise<boolean>;
  /**
   * Deletes delivered and dropped events settled before `before`; returns how many. A push's idempotency
   * key is forgotten with the last of its events (older than `before`), so a resend after that is a new push.
   */
  purge(before: number): Promise<number>;
  stats(): Promise<OutboxStats>;
  close(): Promise<void>;
}
