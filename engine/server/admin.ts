import Koa from 'koa';
import getRawBody from 'raw-body';
import { isOneOf } from '../access/inbound-auth';
import type { JournalEntry } from '../journal/journal-entry';
import { filterFromQuery } from '../journal/query';
import { JOURNAL_LIST_LIMIT, type JournalFilter, type JournalSummary } from '../journal/store';
import { isProblem, listFilterFromQuery, type Answer, type OutboxSupport } from '../outbox/support';
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
  /** The outbox for support staff without the database's credentials; absent when the server keeps none. */
  readonly outbox?: OutboxSupport;
}

const ENDPOINTS = '/health/live, /health/ready, /metrics, /openapi.json, /requests, /requests/{id}, /shadow, /outbox, /outbox/{id}, POST /outbox/{id}/retry, POST /outbox/{id}/drop and POST /outbox/purge';

const PROBES = new Set(['/health/live', '/health/ready']);

/** Whether the request carries one of the tokens (compared in constant time, each of them). */
function authorised(header: string | undefined, tokens: AdminTokens): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  const accepted = tokens.current();
  return given !== undefined && accepted.length > 0 && isOneOf(given, accepted);
}

/** A request of the journal by its id, or by the first characters of one when they name only one of the latest requests. */
async function requestByIdOrPrefix(sources: AdminSources, id: string): Promise<Answer<JournalEntry>> {
  const exact = await sources.request(id);
  if (exact) return exact;
  const matches = (await sources.requests({ limit: JOURNAL_LIST_LIMIT.most })).filter((summary) => summary.id.startsWith(id));
  if (matches.length === 1) return (await sources.request(matches[0].id)) ?? { problem: `no request ${id} in the journal`, status: 404 };
  if (matches.length > 1) return { problem: `${id} is ambiguous: it starts ${matches.length} requests (${matches.slice(0, 5).map((summary) => summary.id).join(', ')}${matches.length > 5 ? ', …' : ''}); give more of the id`, status: 409 };
  return { problem: `no request ${id} in the journal (it keeps the latest requests of each mapping; see --journal-size)`, status: 404 };
}

const OUTBOX_ACTION = /^\/outbox\/(?:purge|[A-Za-z0-9-]{1,64}\/(?:retry|drop))$/;

/** A small JSON body of an outbox action (a drop's reason), read only after the token was checked. */
async function jsonBody(ctx: Koa.Context): Promise<Record<string, unknown>> {
  const text = await getRawBody(ctx.req, { limit: '16kb', encoding: 'utf8' });
  if (text.trim() === '') return {};
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

/** /outbox (list), /outbox/{id} (show), POST /outbox/{id}/retry, POST /outbox/{id}/drop ({"reason"}), POST /outbox/purge ({"before"}). */
async function answerOutbox(ctx: Koa.Context, outbox: OutboxSupport | undefined): Promise<void> {
  const answer = (result: Answer<unknown>) => {
    if (isProblem(result)) {
      ctx.status = result.status;
      ctx.body = { error: result.problem };
    } else ctx.body = result;
  };
  if (!outbox) return answer({ problem: 'this server keeps no outbox: no mapping it serves has an outbox operation or a push, and no --state-dir or DATABASE_URL was named', status: 404 });
  if (ctx.path === '/outbox') {
    const asked = listFilterFromQuery(ctx.query);
    return answer('error' in asked ? { problem: asked.error, status: 400 } : { events: await outbox.list(asked.filter) });
  }
  const [, id, action] = /^\/outbox\/([^/]+)(?:\/(retry|drop))?$/.exec(ctx.path) ?? [];
  if (ctx.method !== 'POST') return answer(id === undefined ? { problem: `no admin endpoint ${ctx.path}; there are ${ENDPOINTS}`, status: 404 } : await outbox.show(id));
  let body: Record<string, unknown>;
  try {
    body = await jsonBody(ctx);
  } catch (error) {
    return answer({ problem: `the body must be a small JSON object: ${(error as Error).message}`, status: 400 });
  }
  if (ctx.path === '/outbox/purge') {
    if (typeof body.before !== 'number') return answer({ problem: 'purge takes {"before": <ms since the epoch>}', status: 400 });
    return answer({ removed: await outbox.purge(body.before) });
  }
  if (action === 'retry') return answer(await outbox.retry(id));
  return answer(await outbox.drop(id, typeof body.reason === 'string' ? body.reason : ''));
}

export function createAdminApp(sources: AdminSources, tokens: AdminTokens): Koa {
  const started = Date.now();
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    if (sources.studio && (ctx.path === '/studio' || ctx.path.startsWith('/studio/'))) {
      // The page and its script hold no data; everything under /studio/api is behind the admin tokens.
      if (!ctx.path.startsWith('/studio/api/') || authorised(ctx.get('authorization'), tokens)) return sources.studio(ctx, next);
    }
    // The outbox's actions change state: POST, and only there.
    const acting = OUTBOX_ACTION.test(ctx.path);
    if (acting ? ctx.method !== 'POST' : ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('allow', acting ? 'POST' : 'GET, HEAD');
      ctx.body = { error: `${ctx.method} is not allowed; ${acting ? `${ctx.path} answers POST` : 'the admin endpoints answer GET, the outbox\'s actions POST'}` };
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
        if (ctx.path.startsWith('/outbox')) {
          await answerOutbox(ctx, sources.outbox);
          return;
        }
        const id = /^\/requests\/([A-Za-z0-9._:-]{1,128})$/.exec(ctx.path)?.[1];
        const entry = id === undefined ? undefined : await requestByIdOrPrefix(sources, id);
        if (entry && !isProblem(entry)) {
          ctx.body = entry;
          return;
        }
        ctx.status = entry?.status ?? 404;
        ctx.body = { error: entry?.problem ?? `no admin endpoint ${ctx.path}; there are ${ENDPOINTS}` };
      }
    }
  });
  // An admin request that fails is answered 500 by Koa and logged by the caller's error handler; never a crash.
  koa.silent = true;
  return koa;
}
