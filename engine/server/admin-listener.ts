import { createAdminApp, type AdminSources } from './admin';
import { listenOn } from './instance';
import { createListener } from './listener';
import type { ServeSettings } from './settings';
import { boundUrl } from './startup-lines';

/** The admin listener of `serve` (one process or the primary of --workers): started, announced, closed. */
export interface AdminListener {
  close(): Promise<void>;
}

/**
 * Said at start and at each reload (SIGHUP, --watch): an admin listener without a token refuses everyone,
 * and an ADMIN_TOKENS_FILE emptied by a botched rotation would otherwise do so without a word.
 */
export function warnWithoutTokens(settings: Pick<ServeSettings, 'admin' | 'announce'>): void {
  const { admin } = settings;
  if (!admin || admin.tokens.current().length > 0) return;
  const why = admin.tokens.from === '' ? 'no admin token is set (ADMIN_TOKENS, ADMIN_TOKENS_FILE)' : `${admin.tokens.from} holds no token`;
  settings.announce('warn', { from: admin.tokens.from }, `${why}: /metrics, /openapi.json, /requests, /outbox and the details of /health/ready answer 401 to everyone`);
}

export async function startAdminListener(settings: Pick<ServeSettings, 'admin' | 'announce'>, sources: AdminSources): Promise<AdminListener> {
  const { admin } = settings;
  if (!admin) return { close: async () => undefined };
  const server = createListener(createAdminApp(sources, admin.tokens).callback());
  const address = await listenOn(server, admin.port, admin.host);
  warnWithoutTokens(settings);
  const url = boundUrl(address, false);
  settings.announce('info', { url, address: address.address, port: address.port }, `admin endpoints on ${url} (/health/live, /health/ready, /metrics, /openapi.json, /requests${sources.outbox ? ', /outbox' : ''}${sources.shadow ? ', /shadow' : ''}${sources.studio ? ', /studio' : ''})`);
  return {
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
