import { createHash } from 'node:crypto';
import type { HttpClient } from '../http/client';
import { ErpConnection } from '../http/connection';
import { Secret } from '../mapping/secret';
import type { SystemSpec } from '../mapping/model';

/**
 * The engine's connections to ERPs, keyed by what they are: the mapping's `system:` settings, secrets
 * included. A mapping replaced by one with an equal `system:` (a reload, a second mapping for the same
 * ERP) finds the same connection, with its OAuth2 token, its caches and its concurrency limit.
 */
export interface ConnectionPool {
  connectionFor(system: SystemSpec): ErpConnection;
  /** Drops the connections of systems no longer served (after a reload); requests in flight keep theirs. */
  keepOnly(systems: readonly SystemSpec[]): void;
  readonly size: number;
}

/** A digest of the settings: secret values take part (a new password is a new connection) but are not kept as text. */
function systemFingerprint(system: SystemSpec): string {
  const text = JSON.stringify(system, (_key, value: unknown) => {
    if (value instanceof Secret) return { secret: value.reveal() };
    if (value instanceof URL) return value.href;
    return value;
  });
  return createHash('sha256').update(text).digest('hex');
}

/** `onTokenFetch` hears of every OAuth2 token fetch, with the token endpoint's origin and the token it gave. */
export function createConnectionPool(http: HttpClient, onTokenFetch?: (erp: string, ok: boolean, token?: string) => void): ConnectionPool {
  const connections = new Map<string, ErpConnection>();
  // A mapping's `system:` is frozen at load, so its digest is made once, not on every request (a
  // JSON.stringify and a SHA-256 were about 2% of a code lookup's CPU).
  const fingerprints = new WeakMap<SystemSpec, string>();
  const fingerprintOf = (system: SystemSpec): string => {
    let key = fingerprints.get(system);
    if (key === undefined) fingerprints.set(system, (key = systemFingerprint(system)));
    return key;
  };
  return {
    connectionFor(system) {
      const key = fingerprintOf(system);
      let connection = connections.get(key);
      if (!connection) {
        const erp = system.auth.type === 'oauth2ClientCredentials' ? system.auth.tokenUrl.origin : system.baseUrl.origin;
        connection = new ErpConnection(system, http, onTokenFetch && ((ok, token) => onTokenFetch(erp, ok, token)));
        connections.set(key, connection);
      }
      return connection;
    },
    keepOnly(systems) {
      const kept = new Set(systems.map(fingerprintOf));
      for (const key of connections.keys()) if (!kept.has(key)) connections.delete(key);
    },
    get size() {
      return connections.size;
    },
  };
}
