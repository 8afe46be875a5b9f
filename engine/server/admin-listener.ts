import { createAdminApp, type AdminSources } from './admin';
import { listenOn } from './instance';
import { createListener } from './listener';
import type { ServeSettings } from './settings';
import { boundUrl } from './startup-lines';

/** The admin listener of `serve` (one process or the primary of --workers): started, announced, closed. */
export interface AdminListener {
  close(): Promise<void>;
}

export async function startAdminListener(settings: Pick<ServeSettings, 'admin' | 'announce'>, sources: AdminSources): Promise<AdminListener> {
  const { admin } = settings;
  if (!admin) return { close: async () => undefined };
  const server = createListener(createAdminApp(sources, admin.tokens).callback());
  const address = await listenOn(server, admin.port, admin.host);
  if (admin.tokens.current().length === 0) settings.announce('warn', {}, 'no admin token is set (ADMIN_TOKENS, ADMIN_TOKENS_FILE): /metrics, /openapi.json, /requests, /outbox and the details of /health/ready answer 401 to everyone');
  const url = boundUrl(address, false);
  settings.announce('info', { url, address: address.address, port: address.port }, `admin endpoints on ${url} (/health/live, /health/ready, /metrics, /openapi.json, /requests${sources.outbox ? ', /outbox' : ''}${sources.shadow ? ', /shadow' : ''}${sources.studio ? ', /studio' : ''})`);
  return {
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
