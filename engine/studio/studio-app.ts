import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import type { Logger } from '../log';
import { PROJECT_ROOT } from '../paths';
import { ENDPOINTS, type Endpoint } from './endpoints';
import { contentSecurityPolicy, guardHeaders, loopbackHost, newSessionToken, refusal } from './security';
import { StudioError } from './studio-error';
import type { Workspace } from './workspace';

/**
 * The studio under /studio: the page (built by `npm run build` into dist/studio/, served from the
 * package: no CDN), its JSON API under /studio/api and the journal's new entries as server-sent events.
 * `write: false` (serve's admin port without --studio-write) answers only the read-only endpoints.
 */
export interface StudioOptions {
  readonly write: boolean;
  readonly log: Logger;
  /** The session token of the page; a new one per studio by default. */
  readonly token?: string;
  /** Answer only requests whose Host is the loopback interface (the local studio; see loopbackHost). */
  readonly loopbackOnly?: boolean;
}

const ASSETS = path.join(PROJECT_ROOT, 'dist', 'studio');
const TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

function page(token: string, write: boolean, styleNonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="studio-token" content="${token}">
<meta name="studio-write" content="${write}">
<meta name="studio-style-nonce" content="${styleNonce}">
<title>adapter-engine studio</title>
<link rel="stylesheet" href="/studio/assets/app.css">
<script type="module" src="/studio/assets/app.js"></script>
</head>
<body><div id="app"></div></body>
</html>
`;
}

function match(method: string, rest: string): { endpoint: Endpoint; params: string[] } | undefined {
  for (const endpoint of ENDPOINTS) {
    if (endpoint.method !== method) continue;
    const pattern = new RegExp(`^${endpoint.path.replace(/\{\w+\}/g, '([A-Za-z0-9._:-]{1,128})')}$`);
    const found = pattern.exec(rest);
    if (found) return { endpoint, params: found.slice(1) };
  }
  return undefined;
}

/** New journal entries as server-sent events (`request`, the summary as data), looked up twice a second. */
function journalEvents(ctx: Koa.Context, workspace: Workspace): void {
  const stream = new PassThrough();
  const seen = new Set<string>();
  let first = true;
  const look = async () => {
    const latest = (await workspace.engine()?.journal.list({ limit: 50 })) ?? [];
    for (const summary of [...latest].reverse()) {
      if (seen.has(summary.id)) continue;
      seen.add(summary.id);
      if (!first) stream.write(`event: request\ndata: ${JSON.stringify(summary)}\n\n`);
    }
    first = false;
  };
  const timer = setInterval(() => void look().catch(() => undefined), 500);
  void look().catch(() => undefined);
  ctx.req.on('close', () => {
    clearInterval(timer);
    stream.end();
  });
  ctx.type = 'text/event-stream';
  ctx.set('connection', 'keep-alive');
  stream.write(': the journal\'s new requests\n\n');
  ctx.body = stream;
}

async function api(ctx: Koa.Context, workspace: Workspace, options: StudioOptions, token: string, rest: string): Promise<void> {
  if (rest === '/events' && ctx.method === 'GET') return journalEvents(ctx, workspace);
  const found = match(ctx.method, rest);
  if (!found) throw new StudioError(404, `no studio endpoint ${ctx.method} /studio/api${rest}`);
  if (found.endpoint.write && !options.write) throw new StudioError(403, 'this studio is read-only: editing, trying, testing and retrying need serve --studio-write (or adapter-engine studio)');
  // A GET changes nothing, and another site's page cannot read its answer (same-origin policy).
  if (ctx.method !== 'GET') {
    const why = refusal(ctx, token);
    if (why) throw new StudioError(403, why);
  }
  ctx.body = await found.endpoint.run(workspace, { params: found.params, query: ctx.query, body: (ctx.request as { body?: unknown }).body }, options.log);
}

export function studioMiddleware(workspace: Workspace, options: StudioOptions): Koa.Middleware {
  const token = options.token ?? newSessionToken();
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: '4mb' });
  return async (ctx, next) => {
    if (ctx.path !== '/studio' && !ctx.path.startsWith('/studio/')) return next();
    guardHeaders(ctx);
    try {
      if (options.loopbackOnly && !loopbackHost(ctx)) throw new StudioError(421, `the studio answers only at 127.0.0.1 or localhost, not ${ctx.host}`);
      if (ctx.path.startsWith('/studio/api/')) {
        await parse(ctx, async () => undefined);
        await api(ctx, workspace, options, token, ctx.path.slice('/studio/api'.length));
        return;
      }
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new StudioError(405, 'the studio\'s page answers only GET');
      if (ctx.path === '/studio' || ctx.path === '/studio/') {
        const styleNonce = newSessionToken();
        ctx.set('content-security-policy', contentSecurityPolicy(styleNonce));
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page(token, options.write, styleNonce);
        return;
      }
      const asset = /^\/studio\/assets\/(app\.(?:js|css))$/.exec(ctx.path)?.[1];
      if (!asset || !fs.existsSync(path.join(ASSETS, asset))) throw new StudioError(404, `no studio page ${ctx.path}${asset ? ' (run npm run build)' : ''}`);
      ctx.type = TYPES[path.extname(asset)];
      ctx.body = fs.createReadStream(path.join(ASSETS, asset));
    } catch (error) {
      if (!(error instanceof StudioError)) throw error;
      ctx.status = error.status;
      ctx.body = { error: error.message };
    }
  };
}
