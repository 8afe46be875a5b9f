import type { Command } from 'commander';
import { EXIT_CODES } from '../errors';
import type { EventKind, EventStatus, ListOrder, StoredEvent } from '../outbox/store';
import { EVENT_STATUSES, LIST_ORDERS, isProblem, storeSupport, type OutboxSupport } from '../outbox/support';
import { openOutboxStore } from '../state/state-store';
import type { AdminOptions } from './admin-client';
import { adminSupport } from './outbox-admin';
import { out, prettyJson, table } from './output';
import { stateDirOf, usageError } from './usage';

/**
 * `adapter-engine outbox`: support staff look at the events the engine accepted and has not delivered,
 * and decide about the dead ones. Through a running server's admin listener (--admin, ADMIN_URL: its
 * admin token, no database credentials), else on the same store `serve` uses: DATABASE_URL, else
 * --state-dir. Both run the same support actions (engine/outbox/support.ts).
 */

interface StoreOptions extends AdminOptions {
  stateDir?: string;
  json?: boolean;
}

const STATUSES = EVENT_STATUSES;
const KINDS: readonly EventKind[] = ['event', 'push'];

async function withSupport<T>(options: StoreOptions, work: (support: OutboxSupport) => Promise<T>): Promise<T> {
  const admin = options.admin ?? process.env.ADMIN_URL;
  if (admin) return work(adminSupport({ ...options, admin }));
  const store = await openOutboxStore({ stateDir: stateDirOf(options.stateDir), databaseUrl: process.env.DATABASE_URL || undefined });
  try {
    return await work(storeSupport(store));
  } finally {
    await store.close();
  }
}

/** Times as support staff read them and as logs print them: ISO 8601, UTC. */
const date = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The event as `show` prints it: its times as dates. */
function shown(event: StoredEvent): Record<string, unknown> {
  return { ...event, acceptedAt: date(event.acceptedAt), nextAttemptAt: event.status === 'pending' ? date(event.nextAttemptAt) : undefined, settledAt: date(event.settledAt) };
}

function age(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

/** `90m`, `2h`, `3d` or plain minutes. */
function parseAge(text: string): number {
  const match = /^(\d+)\s*(m|h|d)?$/.exec(text.trim());
  if (!match) usageError(`--older-than takes a duration such as 30m, 2h or 3d, got "${text}"`);
  return Number(match[1]) * ({ m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'm' | 'h' | 'd'] ?? 60_000);
}

function summary(event: StoredEvent, now: number): string[] {
  const last = event.last ? `${event.last.status ?? ''} ${event.last.error}`.trim() : '';
  return [event.id, event.status, event.kind, event.mapping, event.operation, event.orderingKey, date(event.acceptedAt) ?? '', age(now - event.acceptedAt), String(event.attempts), last.length > 80 ? `${last.slice(0, 79)}…` : last];
}

interface ListOptions extends StoreOptions {
  status: string;
  kind?: string;
  mapping?: string;
  operation?: string;
  key?: string;
  olderThan?: string;
  limit: string;
  order: string;
}

async function list(options: ListOptions): Promise<number> {
  const status = options.status.split(',').map((word) => word.trim()) as EventStatus[];
  const unknown = status.filter((word) => !STATUSES.includes(word));
  if (unknown.length > 0) usageError(`--status takes ${STATUSES.join(', ')}; got ${unknown.join(', ')}`);
  if (options.kind !== undefined && !KINDS.includes(options.kind as EventKind)) usageError(`--kind takes ${KINDS.join(' or ')}; got ${options.kind}`);
  if (!LIST_ORDERS.includes(options.order as ListOrder)) usageError(`--order takes ${LIST_ORDERS.join(' or ')}; got ${options.order}`);
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1) usageError(`--limit must be a whole number above 0, got "${options.limit}"`);
  const now = Date.now();
  const events = await withSupport(options, (support) => support.list({
    status, kind: options.kind as EventKind | undefined, mapping: options.mapping, operation: options.operation, orderingKey: options.key, limit, order: options.order as ListOrder,
    acceptedBefore: options.olderThan === undefined ? undefined : now - parseAge(options.olderThan),
  }));
  if (options.json) {
    out.line(JSON.stringify(events, null, 2));
    return EXIT_CODES.OK;
  }
  if (events.length === 0) {
    out.line(`no ${status.join(' or ')} events`);
    return EXIT_CODES.OK;
  }
  for (const line of table([['id', 'status', 'kind', 'mapping', 'operation', 'key', 'accepted', 'age', 'attempts', 'last answer'], ...events.map((event) => summary(event, now))])) out.line(line);
  return EXIT_CODES.OK;
}

async function show(id: string, options: StoreOptions): Promise<number> {
  const event = await withSupport(options, (support) => support.show(id));
  if (isProblem(event)) {
    out.line(event.problem);
    return EXIT_CODES.FAILED;
  }
  if (options.json) out.line(JSON.stringify(event, null, 2));
  else out.line(prettyJson(shown(event), ''));
  return EXIT_CODES.OK;
}

async function retry(ids: string[], options: StoreOptions): Promise<number> {
  let failed = 0;
  await withSupport(options, async (support) => {
    for (const id of ids) {
      const retried = await support.retry(id);
      if (isProblem(retried)) {
        failed += 1;
        out.line(retried.problem);
      } else out.line(retried.was === 'dead' ? `${retried.id}: pending again; the engine delivers it next` : `${retried.id}: was pending; due now, the engine delivers it next without waiting for its backoff`);
    }
  });
  return failed > 0 ? EXIT_CODES.FAILED : EXIT_CODES.OK;
}

async function drop(id: string, options: StoreOptions & { reason: string }): Promise<number> {
  if (options.reason.trim() === '') usageError('--reason must say why the event is given up; it is kept in the record');
  const dropped = await withSupport(options, (support) => support.drop(id, options.reason));
  out.line(isProblem(dropped) ? dropped.problem : `${dropped.id}: dropped ("${options.reason}"); later events of its key go on`);
  return isProblem(dropped) ? EXIT_CODES.FAILED : EXIT_CODES.OK;
}

async function purge(options: StoreOptions & { olderThan: string }): Promise<number> {
  const removed = await withSupport(options, (support) => support.purge(Date.now() - parseAge(options.olderThan)));
  out.line(`removed ${removed} delivered or dropped event(s) settled more than ${options.olderThan} ago`);
  return EXIT_CODES.OK;
}

export function registerOutbox(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  const outbox = program
    .command('outbox')
    .summary('look at and decide about the events waiting for delivery')
    .description('Events of operations with delivery: outbox (kind event, to the ERP) and of push endpoints (kind push, to the platform; the operation is the push\'s name), as `serve` keeps them: through its admin listener with --admin (or ADMIN_URL; the token from ADMIN_TOKEN), else in PostgreSQL when DATABASE_URL is set, else in SQLite under --state-dir.\n\nA dead event blocks the later events of its key (onDeadLetter: block) until it is retried after a fix, or dropped with a reason.');
  const storeOptions = (command: Command) => command
    .option('--admin <url>', 'a running server\'s admin listener (serve --admin-port), e.g. http://127.0.0.1:9090 (default: env ADMIN_URL); the token from ADMIN_TOKEN')
    .option('--state-dir <dir>', 'the state directory serve uses (default: env ADAPTER_STATE_DIR, else .adapter-state)')
    .option('--json', 'print JSON');
  storeOptions(outbox.command('list').description('list events, oldest first (--order settled: the latest settled first)')
    .option('--status <list>', `comma-separated: ${STATUSES.join(', ')}`, 'pending,dead')
    .option('--kind <kind>', 'only events (the platform\'s, to the ERP) or pushes (the ERP\'s, to the platform): event or push')
    .option('--mapping <name>', 'only this mapping')
    .option('--operation <id>', 'only this operation, e.g. ConfirmPutWallPlacement, or push name')
    .option('--key <key>', 'only this ordering key')
    .option('--older-than <age>', 'only events accepted before this long ago: 30m, 2h, 3d')
    .option('--limit <n>', 'at most this many', '100')
    .option('--order <order>', 'accepted: oldest accepted first; settled: the latest delivered, refused, dead or dropped first', 'accepted'))
    .action((options: ListOptions) => run(list(options)));
  storeOptions(outbox.command('show').description('one event: its input, attempts and the receiver\'s last answer').argument('<id>', 'event id, or its first characters (at least 4) when they name one event'))
    .action((id: string, options: StoreOptions) => run(show(id, options)));
  storeOptions(outbox.command('retry').description('make dead events pending again, and pending ones due now instead of after their backoff (after fixing the cause)').argument('<ids...>', 'event ids, or their first characters'))
    .action((ids: string[], options: StoreOptions) => run(retry(ids, options)));
  storeOptions(outbox.command('drop').description('give an event up; the reason is kept in the record').argument('<id>', 'event id, or its first characters').requiredOption('--reason <text>', 'why it is given up'))
    .action((id: string, options: StoreOptions & { reason: string }) => run(drop(id, options)));
  storeOptions(outbox.command('purge').description('delete delivered and dropped events (serve does it daily for those older than 7 days)').option('--older-than <age>', 'settled before this long ago', '7d'))
    .action((options: StoreOptions & { olderThan: string }) => run(purge(options)));
  for (const command of outbox.commands) command.exitOverride();
}
