import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The one stand-in ERP of the tests (a real HTTP server on 127.0.0.1): it misbehaves on request —
 * answers slowly, drops the connection, answers HTML, 401 then 200, 429 with Retry-After, 503 twice
 * then 200, paginates in every style — and records every request it gets (raw target included), so a
 * test can assert the exact number and shape of ERP calls.
 */

export interface ReceivedRequest {
  readonly method: string;
  /** The request target exactly as it arrived (percent-encoding kept). */
  readonly url: string;
  /** The path below the base path, decoded by URL parsing rules, without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/**
 * One answer. `drop` closes the socket without any answer; `delayMs` waits before answering. `trickle`
 * sends the headers at once and then the body one byte every `everyMs` (chunked, or with the full
 * Content-Length when `declareLength`); `endless` keeps sending chunks for ever.
 */
export type Answer =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>>; readonly delayMs?: number; readonly raw?: string | Buffer; readonly trickle?: Trickle }
  | { readonly drop: true; readonly delayMs?: number };

export interface Trickle {
  readonly everyMs: number;
  readonly endless?: boolean;
  readonly declareLength?: boolean;
}

export type Handler = (request: ReceivedRequest, seen: number) => Answer;

export interface MisbehavingErp {
  /** Base URL, e.g. http://127.0.0.1:41234/api (the base path is an option) */
  readonly url: string;
  readonly origin: string;
  readonly requests: readonly ReceivedRequest[];
  /** Requests received for `METHOD /path` (path without the /api prefix and without query), or all. */
  count(route?: string): number;
  /** Most requests that were being answered at the same time. */
  readonly maxInFlight: number;
  /** Answer `METHOD /path` with the handler; `seen` is 1 for the first request to the route. */
  on(route: string, handler: Handler): void;
  /** Answer every request no `on` route claims (the default is a 404). */
  onAny(handler: Handler): void;
  close(): Promise<void>;
}

/** Answers in order, the last one repeating: `sequence(status(503), status(503), json({ok: true}))`. */
export function sequence(...answers: Answer[]): Handler {
  return (_request, seen) => answers[Math.min(seen, answers.length) - 1];
}

export const json = (body: unknown, headers?: Record<string, string>): Answer => ({ status: 200, body, headers });
export const status = (code: number, headers?: Record<string, string>, body?: unknown): Answer => ({ status: code, headers, body: body ?? { error: `status ${code}` } });
export const drop = (): Answer => ({ drop: true });
export const slow = (delayMs: number, body: unknown): Answer => ({ status: 200, body, delayMs });
/** Headers at once, then the JSON body one byte every `everyMs` (by default 1 byte/s). */
export const trickle = (body: unknown, everyMs = 1000, declareLength = true): Answer => ({ status: 200, body, trickle: { everyMs, declareLength } });
/** Headers at once, then a chunked body that never ends (a space every `everyMs`). */
export const endless = (everyMs = 100): Answer => ({ status: 200, body: {}, trickle: { everyMs, endless: true } });

export type PageStyle = 'page' | 'offset' | 'cursor' | 'nextLink' | 'linkHeader';

/**
 * A list of `items` served `pageSize` at a time in one style:
 * page: ?page=1..&pageSize= → { items, page, totalPages }; offset: ?offset=&limit= → { items, total };
 * cursor: ?cursor= → { items, nextCursor }; nextLink: { items, links: { next } }; linkHeader: Link: <...>; rel="next".
 */
export function paginated(items: readonly unknown[], style: PageStyle, pageSize: number, basePath: string): Handler {
  return (request) => {
    const q = request.query;
    const slice = (start: number, size = pageSize) => items.slice(start, start + size);
    const totalPages = Math.ceil(items.length / pageSize);
    switch (style) {
      case 'page': {
        const page = Number(q.get('page') ?? 1);
        const size = Number(q.get('pageSize') ?? pageSize);
        return json({ items: slice((page - 1) * size, size), page, totalPages: Math.ceil(items.length / size) });
      }
      case 'offset': {
        const offset = Number(q.get('offset') ?? 0);
        return json({ items: slice(offset, Number(q.get('limit') ?? pageSize)), total: items.length });
      }
      case 'cursor': {
        const start = q.get('cursor') ? Number(Buffer.from(q.get('cursor') as string, 'base64url').toString()) : 0;
        const next = start + pageSize < items.length ? Buffer.from(String(start + pageSize)).toString('base64url') : null;
        return json({ items: slice(start), nextCursor: next });
      }
      case 'nextLink': {
        const page = Number(q.get('p') ?? 1);
        return json({ items: slice((page - 1) * pageSize), links: { next: page < totalPages ? `${basePath}?p=${page + 1}` : null } });
      }
      case 'linkHeader': {
        const page = Number(q.get('p') ?? 1);
        const links = [`<${basePath}?p=1>; rel="first"`, ...(page < totalPages ? [`<${basePath}?p=${page + 1}>; rel="next"`] : [])];
        return json(slice((page - 1) * pageSize), { link: links.join(', ') });
      }
    }
  };
}

/** https when `tls` is given; `requestCert` demands a client certificate signed by `ca` (mutual TLS). */
export interface ErpOptions {
  /** Path the ERP's API lives under (default /api); the example ERP uses /api/v1. */
  readonly basePath?: string;
  readonly tls?: { readonly key: string; readonly cert: string; readonly ca?: string; readonly requestCert?: boolean };
}

export async function startMisbehavingErp(options: ErpOptions = {}): Promise<MisbehavingErp> {
  const requests: ReceivedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const handlers = new Map<string, Handler>();
  const seen = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const basePath = options.basePath ?? '/api';
  let fallback: Handler | undefined;

  const listener: http.RequestListener = (req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let finished = false;
    const done = () => {
      if (!finished) inFlight -= 1;
      finished = true;
    };
    res.on('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://local');
      const path = (url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname) || '/';
      const request: ReceivedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', path, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      const route = `${request.method} ${path}`;
      const n = (seen.get(route) ?? 0) + 1;
      seen.set(route, n);
      const handler = handlers.get(route) ?? fallback;
      const answer: Answer = handler ? handler(request, n) : status(404, undefined, { error: `no route ${route}` });
      const respond = () => {
        if ('drop' in answer) {
          req.socket.destroy();
          return;
        }
        const text = answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
        const headers = { 'content-type': answer.raw ? 'text/html' : 'application/json', ...answer.headers };
        if (answer.trickle) {
          const { everyMs, endless: forever, declareLength } = answer.trickle;
          res.writeHead(answer.status, declareLength && !forever ? { ...headers, 'content-length': String(Buffer.byteLength(text)) } : headers);
          res.flushHeaders();
          const bytes = Buffer.from(text);
          let sent = 0;
          const timer = setInterval(() => {
            if (res.destroyed) {
              clearInterval(timer);
              timers.delete(timer);
              return;
            }
            if (forever) {
              res.write(' ');
              return;
            }
            res.write(bytes.subarray(sent, sent + 1));
            sent += 1;
            if (sent >= bytes.length) {
              clearInterval(timer);
              timers.delete(timer);
              res.end();
            }
          }, everyMs);
          timers.add(timer);
          return;
        }
        res.writeHead(answer.status, headers);
        res.end(text);
      };
      if (answer.delayMs) {
        // Cleared on close, so no test waits for an answer nobody will read.
        const timer = setTimeout(() => {
          timers.delete(timer);
          respond();
        }, answer.delayMs);
        timers.add(timer);
      } else respond();
    });
  };
  const server = options.tls
    ? https.createServer({ key: options.tls.key, cert: options.tls.cert, ca: options.tls.ca, requestCert: options.tls.requestCert ?? false, rejectUnauthorized: options.tls.requestCert ?? false }, listener)
    : http.createServer(listener);
  server.on('connection', (socket: import('node:net').Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return {
    url: `${origin}${basePath}`,
    origin,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    count: (route) => (route === undefined ? requests.length : requests.filter((r) => `${r.method} ${r.path}` === route).length),
    on: (route, handler) => {
      handlers.set(route, handler);
    },
    onAny: (handler) => {
      fallback = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An ERP that answers everything with one handler, under the example ERP's base path (/api/v1). */
export async function startErpAnswering(handler: Handler): Promise<MisbehavingErp> {
  const erp = await startMisbehavingErp({ basePath: '/api/v1' });
  erp.onAny(handler);
  return erp;
}

/** A URL on which nothing listens: a port that was just free, closed again (connection refused). */
export async function deadErpUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api/v1`;
}
