import type { AddressInfo } from 'node:net';
import type { Logger } from '../log';
import type { SecretRegistry } from '../mapping/secret-registry';
import type { AdminTokens } from './admin-tokens';
import type { TlsFiles } from './listener';
import type { StateLocation } from '../state/state-store';
import type { LoadReport, MappingSource } from './mapping-source';
import type { Announce } from './startup-lines';

/** What `serve` decided from its flags, handed to the single-process or the cluster runner. */
export interface ServeSettings {
  readonly source: MappingSource;
  readonly initial: LoadReport;
  readonly prefixed: boolean;
  readonly port: number;
  readonly host?: string;
  readonly tls?: TlsFiles;
  /** No admin listener when undefined. */
  readonly admin?: { readonly port: number; readonly host: string; readonly tokens: AdminTokens; /** --studio-write: the studio may retry and drop dead letters. */ readonly studioWrite?: boolean };
  readonly watch: boolean;
  readonly shutdownTimeoutMs: number;
  /** Where outbox events are kept; opened when a mapping uses delivery: outbox, or when given explicitly. */
  readonly outbox: StateLocation & { readonly explicit: boolean };
  /** Requests the journal keeps per mapping (0: none); in the state store too when the server has one. */
  readonly journalSize: number;
  /** Share of the time the journal may spend keeping successes in full, 0..1 (journal/cpu-budget.ts). */
  readonly journalMaxCpuShare: number;
  /** Shadow candidates' runs wait while the live requests' thread uses more than this share of a CPU (0..1). */
  readonly shadowMaxCpuShare?: number;
  readonly log: Logger;
  /** The secret values the engine masks, and the log with it. */
  readonly secrets: SecretRegistry;
  /** The start-up lines (where it listens), as log lines. */
  readonly announce: Announce;
  /** Told the address actually bound (--port 0 picks a port), once the platform's listener listens. */
  readonly listening?: (bound: AddressInfo) => void;
}
