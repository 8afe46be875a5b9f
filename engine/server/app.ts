import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import type { Engine } from '../engine/engine';
import type { BodyError } from '../engine/request';

export interface HttpAppOptions {
  /** Largest JSON body accepted from the platform; by default what the engine's mappings need (engine.bodyLimitBytes). */
  readonly bodyLimit?: string | number;
}

type ParseError = Error & { status?: number };

/**
 * The HTTP server only translates: an HTTP request becomes an EngineRequest, the engine's answer
 * becomes the HTTP response. Routing, input reading, the pipeline and the error funnel are the
 * engine's, so the server answers exactly what `dry-run` and `test` show.
 */
export function createHttpApp(engine: Engine, options: HttpAppOptions = {}): Koa {
  const koa = new Koa();
  const parserFor = (limit: string | number) => bodyParser({
    enableTypes: ['json'],
    jsonLimit: typeof limit === 'string' ? limit : `${limit}b`,
    // The platform may omit or misstate the content type; every contract body is JSON.
    detectJSON: () => true,
    onerror: (error, ctx) => {
      ctx.state.bodyError = error;
    },
  });
  // The limit follows the mappings served now: a reload that adds a file route with larger files raises it.
  let parser = { limit: options.bodyLimit ?? engine.bodyLimitBytes, parse: parserFor(options.bodyLimit ?? engine.bodyLimitBytes) };
  const parseBody: Koa.Middleware = (ctx, next) => {
    const limit = options.bodyLimit ?? engine.bodyLimitBytes;
    if (limit !== parser.limit) parser = { limit, parse: parserFor(limit) };
    return parser.parse(ctx, next);
  };

  koa.use(async (ctx, next) => {
    // Only requests that may carry a body are parsed; a GET's body is never read, as before.
    if (ctx.method === 'POST' || ctx.method === 'PUT' || ctx.method === 'PATCH') await parseBody(ctx, next);
    else await next();
  });
  koa.use(async (ctx) => {
    const parseError = ctx.state.bodyError as ParseError | undefined;
    const bodyError: BodyError | undefined = parseError && { kind: parseError.status === 413 ? 'too-large' : 'malformed', message: parseError.message };
    const raw = ctx.request.rawBody;
    const empty = raw === undefined || String(raw).trim() === '';
    // The raw text is as large as the body (tens of MB for a file upload) and nothing reads it again.
    ctx.request.rawBody = '';
    const requestId = ctx.get('x-request-id') || undefined;
    const answer = await engine.handle({
      method: ctx.method,
      path: ctx.path,
      query: ctx.query,
      body: bodyError || empty ? undefined : (ctx.request.body as unknown),
      bodyError,
      requestId,
      headers: ctx.headers,
    });
    ctx.status = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
    ctx.body = answer.body;
  });
  koa.silent = true;
  return koa;
}
