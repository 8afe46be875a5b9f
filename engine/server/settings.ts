import type { Logger } from '../log';
import type { SecretRegistry } from '../mapping/secret-registry';
import type { AdminTokens } from './admin-tokens';
import type { TlsFiles } from './listener';
import type { StateLocation } from '../state/state-store';
import type { LoadReport, MappingSource } from './mapping-source';

/** What `serve` decided from its flags, handed to the single-process or the cluster runner. */
export interface ServeSettings {
  readonly source: MappingSource;
  readonly initial: LoadReport;
  readonly prefixed: boolean;
  readonly port: number;
  readonly host?: string;
  readonly tls?: TlsFiles;
  /** No admin listener when undefined. */
  readonly admin?: { readonly port: number; readonly host: string; readonly tokens: AdminTokens };
  readonly watch: boolean;
  readonly shutdownTimeoutMs: number;
  /** Where outbox events are kept; opened when a mapping uses delivery: outbox, or when given explicitly. */
  readonly outbox: StateLocation & { readonly explicit: boolean };
  /** Requests the journal keeps per mapping (0: none); in the state store too when the server has one. */
  readonly journalSize: number;
  /** Shadow candidates are skipped while the process is busier than this share of a CPU (0..1). */
  readonly shadowMaxCpuShare?: number;
  readonly log: Logger;
  /** The secret values the engine masks, and the log with it. */
  readonly secrets: SecretRegistry;
  /** Lines for the operator's terminal (the listening addresses). */
  readonly print: (line: string) => void;
}

/** The address in a URL people can click: all interfaces shown as localhost, IPv6 in brackets. */
function shownHost(host: string | undefined): string {
  if (!host || host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** The lines `serve` prints once listening; scripts and tests read the URLs from them. */
export function listeningLines(settings: ServeSettings, port: number, mappings: readonly string[]): string[] {
  const base = `${settings.tls ? 'https' : 'http'}://${shownHost(settings.host)}:${port}`;
  if (!settings.prefixed) return mappings.map((name) => `adapter engine (mapping "${name}") listening on ${base}`);
  return mappings.map((name) => `adapter engine (mapping "${name}") listening on ${base}/${encodeURIComponent(name)}`);
}
