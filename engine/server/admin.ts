import Koa from 'koa';

/**
 * The operator's listener, on its own port (never the platform's): liveness, readiness, metrics and
 * the contract document. Read-only, so it has no credentials of its own; it listens on 127.0.0.1
 * unless the operator chooses otherwise (--admin-host).
 */
export interface AdminSources {
  readonly ready: () => Promise<{ readonly ready: boolean }>;
  readonly metrics: () => Promise<{ readonly contentType: string; readonly text: string }>;
  readonly openapi: () => Record<string, unknown>;
}

export function createAdminApp(sources: AdminSources): Koa {
  const started = Date.now();
  const koa = new Koa();
  koa.use(async (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('allow', 'GET, HEAD');
      ctx.body = { error: `${ctx.method} is not allowed; the admin endpoints only answer GET` };
      return;
    }
    switch (ctx.path) {
      case '/health/live':
        ctx.body = { live: true, pid: process.pid, uptimeSeconds: Math.round((Date.now() - started) / 1000) };
        return;
      case '/health/ready': {
        const readiness = await sources.ready();
        ctx.status = readiness.ready ? 200 : 503;
        ctx.body = readiness;
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
      default:
        ctx.status = 404;
        ctx.body = { error: `no admin endpoint ${ctx.path}; there are /health/live, /health/ready, /metrics and /openapi.json` };
    }
  });
  // An admin request that fails is answered 500 by Koa and logged by the caller's error handler; never a crash.
  koa.silent = true;
  return koa;
}
