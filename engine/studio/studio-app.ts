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
import type { StudioSources } from './sources';
import type { Workspace } from './workspace';

/**
 * The studio under /studio: the page (built by `npm run build` into dist/studio/, served from the
 * package: no CDN), its JSON API under /studio/api and the journal's new entries as server-sent events.
 * On serve's admin port there is no workspace: the page shows Mappings, Requests and Outbox.
 */
export interface StudioOptions {
  readonly sources: StudioSources;
  /** `adapter-engine studio`'s files, runs and tests; none on serve's admin port. */
  readonly workspace?: Workspace;
  /** Whether dead letters may be retried and dropped here (serve: --studio-write). */
  readonly settle: boolean;
  readonly log: Logger;
  /** The session token of the page; a new one per studio by default. */
  readonly token?: string;
  /** Answer only requests whose Host is the loopback interface (the local studio; see loopbackHost). */
  readonly loopbackOnly?: boolean;
}

const ASSETS = path.join(PROJECT_ROOT, 'dist', 'studio');
const TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

function page(token: string, options: StudioOptions, styleNonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="studio-token" content="${token}">
<meta name="studio-edit" content="${options.workspace !== undefined}">
<meta name="studio-settle" content="${options.settle}">
<meta name="studio-style-nonce" content="${styleNonce}">
<title>adapter-engine studio</title>
<link rel="icon" href="data:,">
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
function journalEvents(ctx: Koa.Context, sources: StudioSources): void {
  const stream = new PassThrough();
  const seen = new Set<string>();
  let first = true;
  const look = async () => {
    const latest = await sources.requests({ limit: 50 });
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

async function api(ctx: Koa.Context, options: StudioOptions, token: string, rest: string): Promise<void> {
  if (rest === '/events' && ctx.method === 'GET') return journalEvents(ctx, options.sources);
  const found = match(ctx.method, rest);
  if (!found) throw new StudioError(404, `no studio endpoint ${ctx.method} /studio/api${rest}`);
  const { endpoint } = found;
  if (endpoint.kind === 'edit' && !options.workspace) throw new StudioError(403, 'editing, trying and testing mappings is for adapter-engine studio; serve\'s studio shows mappings, requests and the outbox');
  if (endpoint.kind === 'settle' && !options.settle) throw new StudioError(403, 'this studio is read-only: retrying and dropping dead letters needs serve --studio-write');
  // A GET changes nothing, and another site's page cannot read its answer (same-origin policy).
  if (ctx.method !== 'GET') {
    const why = refusal(ctx, token);
    if (why) throw new StudioError(403, why);
  }
  const call = { params: found.params, query: ctx.query, body: (ctx.request as { body?: unknown }).body };
  ctx.body = endpoint.kind === 'edit' ? await endpoint.run(options.workspace as Workspace, call, options.log) : await endpoint.run(options.sources, call, options.log);
}

export function studioMiddleware(options: StudioOptions): Koa.Middleware {
  const token = options.token ?? newSessionToken();
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: '4mb' });
  return async (ctx, next) => {
    if (ctx.path !== '/studio' && !ctx.path.startsWith('/studio/')) return next();
    guardHeaders(ctx);
    try {
      if (options.loopbackOnly && !loopbackHost(ctx)) throw new StudioError(421, `the studio answers only at 127.0.0.1 or localhost, not ${ctx.host}`);
      if (ctx.path.startsWith('/studio/api/')) {
        await parse(ctx, async () => undefined);
        await api(ctx, options, token, ctx.path.slice('/studio/api'.length));
        return;
      }
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new StudioError(405, 'the studio\'s page answers only GET');
      if (ctx.path === '/studio' || ctx.path === '/studio/') {
        const styleNonce = newSessionToken();
        ctx.set('content-security-policy', contentSecurityPolicy(styleNonce));
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page(token, options, styleNonce);
        return;
      }
      const asset = /^\/studio\/assets\/(app\.(?:js|css))$/.exec(ctx.path)?.[1];
      if (!asset || !fs.existsSync(path.join(ASSETS, asset))) throw new StudioError(404, `no studio page ${ctx.path}${asset ? ' (run npm run build)' : ''}`);
      ctx.type = TYPES[path.extname(asset)];
      ctx.body = fs.createReadStream(path.join(ASSETS, asset));
    } catch (error) {
      if (!(error instanceof StudioError)) throw error;
      ctx.status = error.status;
      ctx.body = { ...error.details, error: error.message };
    }
  };
}
