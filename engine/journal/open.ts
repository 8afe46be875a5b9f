import path from 'node:path';
import { createJournal, type Journal } from './journal';
import { openPostgresJournal } from './postgres-journal';
import { openSqliteJournal } from './sqlite-journal';
import type { JournalStore } from './store';
import type { Logger } from '../log';
import { usesOutbox, type OutboxLocation } from '../state/state-store';

/**
 * Where a server keeps its request journal: in memory always, and in the state store when the server has
 * one (the outbox's: PostgreSQL with DATABASE_URL, else SQLite in the state directory), so the journal
 * outlives a restart and the workers and replicas are read together.
 */
type StoreSettings = { readonly outbox: OutboxLocation & { readonly explicit: boolean }; readonly initial: { readonly mappings: Parameters<typeof usesOutbox>[0] } };

export async function openJournalStore(settings: StoreSettings): Promise<JournalStore | undefined> {
  if (!settings.outbox.explicit && !usesOutbox(settings.initial.mappings)) return undefined;
  if (settings.outbox.databaseUrl) return openPostgresJournal(settings.outbox.databaseUrl);
  return openSqliteJournal(path.resolve(settings.outbox.stateDir));
}

export async function journalFor(settings: StoreSettings & { readonly journalSize: number }, log: Logger): Promise<Journal> {
  const store = settings.journalSize > 0 ? await openJournalStore(settings) : undefined;
  return createJournal({ size: settings.journalSize, store, log });
}
