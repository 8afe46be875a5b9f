import path from 'node:path';
import { openPostgresStore } from '../outbox/postgres-store';
import { openSqliteStore } from '../outbox/sqlite-store';
import type { OutboxStore } from '../outbox/store';

/**
 * Which outbox store a server uses: PostgreSQL when DATABASE_URL is set (replicas share it), else SQLite
 * in the state directory (one machine; the workers of one server share the file). Two servers must not
 * share one state directory with different mappings of the same name: each would deliver the other's events.
 */
export interface OutboxLocation {
  readonly stateDir: string;
  readonly databaseUrl?: string;
}

export async function openOutboxStore(location: OutboxLocation): Promise<OutboxStore> {
  if (location.databaseUrl) return openPostgresStore(location.databaseUrl);
  return openSqliteStore(path.resolve(location.stateDir));
}

export function usesOutbox(mappings: readonly { readonly operations: ReadonlyMap<string, { readonly mode: string; readonly outbox?: unknown }>; readonly pushes: ReadonlyMap<string, unknown> }[]): boolean {
  return mappings.some((mapping) => mapping.pushes.size > 0 || [...mapping.operations.values()].some((operation) => operation.mode === 'flow' && operation.outbox !== undefined));
}

/** The store a serving process opens: only when a mapping uses the outbox, or the operator named one. */
export async function outboxFor(settings: { readonly outbox: OutboxLocation & { readonly explicit: boolean }; readonly initial: { readonly mappings: Parameters<typeof usesOutbox>[0] } }): Promise<OutboxStore | undefined> {
  if (!settings.outbox.explicit && !usesOutbox(settings.initial.mappings)) return undefined;
  return openOutboxStore(settings.outbox);
}
