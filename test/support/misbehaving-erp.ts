import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * A local ERP for connectivity tests that misbehaves on request: answers slowly, drops the connection,
 * answers 401 then 200, 429 with Retry-After, 503 twice then 200, paginates in every style, and counts
 * every request it gets, so a test can assert the exact number of ERP calls.
 */

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One answer. `drop` closes the socket without any answer; `delayMs` waits before answering. */
export type Answer =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>>; readonly delayMs?: number; readonly raw?: string }
  | { readonly drop: true; readonly delayMs?: number };

export type Handler = (request: ReceivedRequest, seen: number) => Answer;

export interface MisbehavingErp {
  /** Base URL, e.g. http://127.0.0.1:41234/api */
  readonly url: string;
  readonly origin: string;
  readonly requests: readonly ReceivedRequest[];
  /** Requests received for `METHOD /path` (path without the /api prefix and without query), or all. */
  count(route?: string): number;
  /** Most requests that were being answered at the same time. */
  readonly maxInFlight: number;
  /** Answer `METHOD /path` with the handler; `seen` is 1 for the first request to the route. */
  on(route: string, handler: Handler): void;
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
  readonly tls?: { readonly key: string; readonly cert: string; readonly ca?: string; readonly requestCert?: boolean };
}

export async function startMisbehavingErp(options: ErpOptions = {}): Promise<MisbehavingErp> {
  const requests: ReceivedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const handlers = new Map<string, Handler>();
  const seen = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();

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
      const path = url.pathname.replace(/^\/api/, '') || '/';
      const request: ReceivedRequest = { method: req.method ?? 'GET', path, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      const route = `${request.method} ${path}`;
      const n = (seen.get(route) ?? 0) + 1;
      seen.set(route, n);
      const handler = handlers.get(route);
      const answer: Answer = handler ? handler(request, n) : status(404, undefined, { error: `no route ${route}` });
      const respond = () => {
        if ('drop' in answer) {
          req.socket.destroy();
          return;
        }
        const text = answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
        res.writeHead(answer.status, { 'content-type': answer.raw ? 'text/html' : 'application/json', ...answer.headers });
        res.end(text);
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
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
    url: `${origin}/api`,
    origin,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    count: (route) => (route === undefined ? requests.length : requests.filter((r) => `${r.method} ${r.path}` === route).length),
    on: (route, handler) => {
      handlers.set(route, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
