import path from 'node:path';
import { createJournal, type Journal } from '../journal/journal';
import { openPostgresJournal } from '../journal/postgres-journal';
import { openSqliteJournal } from '../journal/sqlite-journal';
import type { JournalStore } from '../journal/store';
import type { Logger } from '../log';
import { openPostgresStore } from '../outbox/postgres-store';
import { openSqliteStore } from '../outbox/sqlite-store';
import type { OutboxStore } from '../outbox/store';
import { openPostgres, type PostgresDatabase } from '../postgres-open';
import { driftFile, type DriftSightings } from './drift-sightings';
import { openPostgresDriftSightings } from './postgres-drift-sightings';

/**
 * Where a server keeps its state, the outbox's events, the request journal and the ERP drift it saw
 * live: PostgreSQL when DATABASE_URL is set (replicas share it), else SQLite files and drift.json in the
 * state directory (one machine; the workers of one server share them). Two servers must not share one state directory with different
 * mappings of the same name: each would deliver the other's events.
 */
export interface StateLocation {
  readonly stateDir: string;
  readonly databaseUrl?: string;
}

/** What a serving process is told about its state: where, whether the operator named it, and what it serves. */
export interface StateSettings {
  readonly outbox: StateLocation & { readonly explicit: boolean };
  readonly initial: { readonly mappings: Parameters<typeof usesOutbox>[0] };
  /** Requests the journal keeps per mapping; 0 keeps none (and opens no journal store). */
  readonly journalSize: number;
  /** Share of the time the journal may spend keeping successes in full (journal/cpu-budget.ts). */
  readonly journalMaxCpuShare?: number;
}

export function usesOutbox(mappings: readonly { readonly operations: ReadonlyMap<string, { readonly mode: string; readonly outbox?: unknown }>; readonly pushes: ReadonlyMap<string, unknown> }[]): boolean {
  return mappings.some((mapping) => mapping.pushes.size > 0 || [...mapping.operations.values()].some((operation) => operation.mode === 'flow' && operation.outbox !== undefined));
}

/** The outbox store alone (`adapter-engine outbox`, the bench's adapters). */
export async function openOutboxStore(location: StateLocation, log?: Logger): Promise<OutboxStore> {
  if (location.databaseUrl) return openPostgresStore(await openPostgres(location.databaseUrl, log));
  return openSqliteStore(path.resolve(location.stateDir));
}

/** The ERP drift seen live alone (`adapter-engine test`): where `serve` keeps it with the same settings. */
/** `adapter-engine test` reads the drift for warnings only: a database that does not answer in this is reported and skipped. */
const DRIFT_READ_CONNECT_MS = 3000;

export async function openDriftSightings(location: StateLocation): Promise<DriftSightings> {
  if (location.databaseUrl) return openPostgresDriftSightings(await openPostgres(location.databaseUrl, undefined, { connectTimeoutMs: DRIFT_READ_CONNECT_MS }));
  return driftFile(location.stateDir);
}

/**
 * The state a serving process opens: the state store only when a mapping uses the outbox or the operator
 * named one, and then the outbox and the journal in it (one PostgreSQL pool for both); the journal keeps
 * the latest requests in memory always, so it outlives a restart only with a store.
 */
function opensStore(settings: Pick<StateSettings, 'outbox' | 'initial'>): boolean {
  return settings.outbox.explicit || usesOutbox(settings.initial.mappings);
}

/** The outbox store of `serve --workers`' primary, which serves none of it but the admin listener's /outbox: the workers' store, or none. */
export async function openServedOutbox(settings: Pick<StateSettings, 'outbox' | 'initial'>, log: Logger): Promise<OutboxStore | undefined> {
  return opensStore(settings) ? openOutboxStore(settings.outbox, log) : undefined;
}

export async function openState(settings: StateSettings, log: Logger): Promise<{ readonly outbox?: OutboxStore; readonly journal: Journal; readonly drift: DriftSightings }> {
  const { databaseUrl, stateDir } = settings.outbox;
  // Without a store, the drift seen is still kept in the state directory, for `adapter-engine test`.
  const journalOf = (store?: JournalStore) => createJournal({ size: settings.journalSize, store, log, maxCpuShare: settings.journalMaxCpuShare });
  if (!opensStore(settings)) return { journal: journalOf(), drift: driftFile(stateDir) };
  const database: PostgresDatabase | undefined = databaseUrl ? await openPostgres(databaseUrl, log) : undefined;
  const outbox = database ? await openPostgresStore(database) : openSqliteStore(path.resolve(stateDir));
  let drift: DriftSightings | undefined;
  try {
    drift = database ? await openPostgresDriftSightings(database) : driftFile(stateDir);
    const store = settings.journalSize === 0 ? undefined : database ? await openPostgresJournal(database) : openSqliteJournal(path.resolve(stateDir));
    return { outbox, journal: journalOf(store), drift };
  } catch (error) {
    await drift?.close();
    await outbox.close();
    throw error;
  }
}
