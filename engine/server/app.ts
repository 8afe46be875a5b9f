import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import pLimit from 'p-limit';
import getRawBody from 'raw-body';
import type { Engine } from '../core/engine';
import type { EngineAnswer } from '../core/stage';
import type { BodyError } from '../core/request';
import { answerJson } from './json-answer';
import { turnEventLoop } from '../time-slices';

export interface HttpAppOptions {
  /** Largest JSON body accepted from the platform; by default what the engine's mappings need (engine.bodyLimitBytes). */
  readonly bodyLimit?: string | number;
  /**
   * Requests with a large body (file uploads) handled at once; the others wait, their bodies unread.
   * Each holds its body, the decoded file and the parsed records: 32 at once exhausted the heap.
   */
  readonly largeBodyConcurrency?: number;
  /** Told of each answer once it is sent in full (the shadow candidate runs then, never before the platform has its answer). */
  readonly sent?: (answer: EngineAnswer) => void;
}

/** Bodies above this (or of unknown length) count as large; contract requests other than files are a few KB. */
const LARGE_BODY_BYTES = 1024 * 1024;

type ParseError = Error & { status?: number };

/**
 * A refused request's body up to this is read and dropped, so that its client (most often the platform
 * with a wrong key) sees the 401 rather than a reset; a larger one is not read at all: the answer says
 * `Connection: close` and the connection ends with it.
 */
const REFUSED_BODY_READ_BYTES = 64 * 1024;

/** Most of an unread body that is discarded to answer properly; beyond it the connection is closed. */
const DISCARD_LIMIT_BYTES = 256 * 1024 * 1024;
const DISCARD_LIMIT_MS = 30_000;

/** Reads and discards what is left of a request body (bounded in bytes and time). */
function drained(request: IncomingMessage): Promise<void> {
  if (request.readableEnded || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const done = () => {
      clearTimeout(timer);
      request.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > DISCARD_LIMIT_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_LIMIT_MS);
    timer.unref();
    request.on('data', count);
    request.once('end', done);
    request.once('close', done);
    request.resume();
  });
}

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

  // Credentials first, from the headers alone: a request that is not let in never waits for or holds a
  // large-body slot, and its body is not read (four unauthenticated 60 MB uploads took RSS from 98 to
  // 660 MB; two trickling ones held both slots while an authorised upload waited).
  koa.use(async (ctx, next) => {
    const refused = engine.refuse({ method: ctx.method, path: ctx.path, query: ctx.query, requestId: ctx.get('x-request-id') || undefined, headers: ctx.headers });
    if (!refused) return next();
    const length = Number(ctx.get('content-length') || 0);
    const chunked = ctx.get('transfer-encoding') !== '';
    if (!chunked && length <= REFUSED_BODY_READ_BYTES) await drained(ctx.req);
    else ctx.set('connection', 'close');
    ctx.status = refused.status;
    for (const [name, value] of Object.entries(refused.headers)) ctx.set(name, value);
    await answerJson(ctx, refused.body);
  });
  const largeBodies = pLimit(options.largeBodyConcurrency ?? Math.max(2, os.availableParallelism()));
  koa.use((ctx, next) => {
    const length = Number(ctx.get('content-length') || NaN);
    const large = length > LARGE_BODY_BYTES || (Number.isNaN(length) && ctx.get('transfer-encoding') !== '');
    return large ? largeBodies(() => next()) : next();
  });
  koa.use(async (ctx, next) => {
    // A client that asks first (Expect: 100-continue; the server hands such requests here unanswered) sends
    // its body only now: after its credentials were accepted and it has its large-body slot.
    if (ctx.get('expect').toLowerCase() === '100-continue') ctx.res.writeContinue();
    // Only requests that may carry a body are parsed; a GET's body is never read, as before.
    if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
    // A browser may send text/plain or form bodies to any site without asking first (no CORS preflight); the
    // platform sends JSON, or no content type at all. Refusing the others keeps a web page from posting events.
    const type = ctx.get('content-type');
    if (type !== '' && !/^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(type)) {
      ctx.state.bodyError = Object.assign(new Error(`the body must be JSON (content-type application/json), not ${type.split(';')[0]}`), { status: 415 });
      await drained(ctx.req);
      return next();
    }
    if (engine.isPushPath(ctx.path)) {
      // A push's signature covers the bytes as sent: they are kept as they came, and the engine parses them.
      try {
        ctx.state.rawBody = await getRawBody(ctx.req, { limit: options.bodyLimit ?? engine.bodyLimitBytes });
      } catch (error) {
        ctx.state.bodyError = error;
      }
      return next();
    }
    await parseBody(ctx, async () => {
      // JSON.parse of a large body runs in one go (15–25 ms for the 10 MB of a 50,000-order export). The
      // event loop turns before the engine's own work on it starts, so that other requests wait for the
      // parse or for a slice of that work, not for both. With TimeSlices (a new one turns first), the
      // bench's case 7: a cheap request's worst wait during the export 54 → 30–36 ms.
      if (String(ctx.request.rawBody ?? '').length > LARGE_BODY_BYTES) await turnEventLoop();
      return next();
    });
  });
  koa.use(async (ctx) => {
    const parseError = ctx.state.bodyError as ParseError | undefined;
    const bodyError: BodyError | undefined = parseError && { kind: parseError.status === 413 ? 'too-large' : parseError.status === 415 ? 'not-json' : 'malformed', message: parseError.message };
    // The rest of a body that was not read must arrive before the answer, or the client sees a reset instead of the envelope.
    if (parseError) await drained(ctx.req);
    const raw = ctx.request.rawBody;
    const empty = raw === undefined || String(raw).trim() === '';
    // The raw text is as large as the body (tens of MB for a file upload) and nothing reads it again.
    ctx.request.rawBody = '';
    const requestId = ctx.get('x-request-id') || undefined;
    // The platform gave up (its timeout, a restart): calls not yet made for it are not made.
    const gone = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableEnded) gone.abort();
    };
    ctx.res.once('close', onClose);
    const answer = await engine.handle({
      method: ctx.method,
      path: ctx.path,
      query: ctx.query,
      body: bodyError || empty ? undefined : (ctx.request.body as unknown),
      rawBody: ctx.state.rawBody as Buffer | undefined,
      bodyError,
      requestId,
      headers: ctx.headers,
      signal: gone.signal,
    });
    ctx.res.off('close', onClose);
    const { sent } = options;
    if (sent) ctx.res.once('finish', () => sent(answer));
    ctx.status = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
    await answerJson(ctx, answer.body);
  });
  koa.silent = true;
  return koa;
}
