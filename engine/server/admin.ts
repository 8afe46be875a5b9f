import Koa from 'koa';
import { isOneOf } from '../access/inbound-auth';
import type { JournalEntry } from '../journal/journal-entry';
import { filterFromQuery } from '../journal/query';
import type { JournalFilter, JournalSummary } from '../journal/store';
import type { ShadowReport } from '../shadow/report';
import type { AdminTokens } from './admin-tokens';

/**
 * The operator's listener, on its own port (never the platform's): liveness, readiness, metrics, the
 * contract document and the request journal (`/requests`, secrets masked). It listens on 127.0.0.1 unless
 * the operator chooses otherwise (--admin-host), and everything but the probes needs
 * `Authorization: Bearer <token>` with one of the admin tokens (ADMIN_TOKENS): the journal holds every
 * request body. The probes answer without one, as a Kubernetes probe cannot send it easily; without a
 * token, /health/ready says only whether the server is ready, its details need the token.
 */
export interface AdminSources {
  readonly ready: () => Promise<{ readonly ready: boolean }>;
  readonly metrics: () => Promise<{ readonly contentType: string; readonly text: string }>;
  readonly openapi: () => Record<string, unknown>;
  /** The request journal: the latest requests matching a filter, newest first, and one request in full. */
  readonly requests: (filter: JournalFilter) => Promise<readonly JournalSummary[]>;
  readonly request: (id: string) => Promise<JournalEntry | undefined>;
  /** The shadow candidates and their runs that answered otherwise than the live mapping (shadow/report.ts); serve always gives it. */
  readonly shadow?: (filter: JournalFilter) => Promise<ShadowReport>;
  /** The read-only studio under /studio (its page opens without a token; its API needs one). */
  readonly studio?: Koa.Middleware;
}

const ENDPOINTS = '/health/live, /health/ready, /metrics, /openapi.json, /requests, /requests/{id} and /shadow';

const PROBES = new Set(['/health/live', '/health/ready']);

/** Whether the request carries one of the tokens (compared in constant time, each of them). */
function authorised(header: string | undefined, tokens: AdminTokens): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  const accepted = tokens.current();
  return given !== undefined && accepted.length > 0 && isOneOf(given, accepted);
}

export function createAdminApp(sources: AdminSources, tokens: AdminTokens): Koa {
  const started = Date.now();
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    if (sources.studio && (ctx.path === '/studio' || ctx.path.startsWith('/studio/'))) {
      // The page and its script hold no data; everything under /studio/api is behind the admin tokens.
      if (!ctx.path.startsWith('/studio/api/') || authorised(ctx.get('authorization'), tokens)) return sources.studio(ctx, next);
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('allow', 'GET, HEAD');
      ctx.body = { error: `${ctx.method} is not allowed; the admin endpoints only answer GET` };
      return;
    }
    const allowed = authorised(ctx.get('authorization'), tokens);
    if (!allowed && !PROBES.has(ctx.path)) {
      ctx.status = 401;
      ctx.set('www-authenticate', 'Bearer realm="adapter-engine admin"');
      ctx.body = {
        error: tokens.current().length === 0
          ? `${ctx.path} needs a token, and the server has none: start serve with ADMIN_TOKENS (or ADMIN_TOKENS_FILE) and send Authorization: Bearer <token>`
          : `${ctx.path} needs Authorization: Bearer <token> with one of the server's admin tokens (${tokens.from})`,
      };
      return;
    }
    switch (ctx.path) {
      case '/health/live':
        ctx.body = { live: true, pid: process.pid, uptimeSeconds: Math.round((Date.now() - started) / 1000) };
        return;
      case '/health/ready': {
        const readiness = await sources.ready();
        ctx.status = readiness.ready ? 200 : 503;
        // The details name files, mappings and the outbox's state: for the operator, not for anyone who can reach the port.
        ctx.body = allowed ? readiness : { ready: readiness.ready };
        return;
      }
      case '/metrics': {
        const { contentType, text } = await sources.metrics();
        ctx.type = contentType;
        ctx.body = text;
        return;
      }
      case '/openapi.json':
        ctx.body = sources.openapi();
        return;
      case '/requests':
      case '/shadow': {
        const asked = filterFromQuery(ctx.query);
        if ('error' in asked) {
          ctx.status = 400;
          ctx.body = { error: asked.error };
          return;
        }
        ctx.body = ctx.path === '/shadow' ? await sources.shadow?.(asked.filter) ?? { candidates: [], runs: [] } : { requests: await sources.requests(asked.filter) };
        return;
      }
      default: {
        const id = /^\/requests\/([A-Za-z0-9._:-]{1,128})$/.exec(ctx.path)?.[1];
        const entry = id === undefined ? undefined : await sources.request(id);
        if (entry) {
          ctx.body = entry;
          return;
        }
        ctx.status = 404;
        ctx.body = { error: id === undefined ? `no admin endpoint ${ctx.path}; there are ${ENDPOINTS}` : `no request ${id} in the journal (it keeps the latest requests of each mapping; see --journal-size)` };
      }
    }
  });
  // An admin request that fails is answered 500 by Koa and logged by the caller's error handler; never a crash.
  koa.silent = true;
  return koa;
}
