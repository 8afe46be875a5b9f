/**
 * A stand-in for the warehouse platform's integration interface: where the engine delivers the ERP's
 * pushes (push endpoints of a mapping). The real interface is outside the adapter contract and differs
 * per platform installation; this one takes any JSON POST under `/integration`, records it with the
 * headers the engine adds (idempotency key, request id), and answers 201, so the example shows what
 * arrived and in which order.
 *
 *   GET    /integration/received   what arrived, oldest first
 *   DELETE /integration/received   forget it
 *   POST   /integration/...        recorded; 201 { received: <n> }
 */
import http from 'node:http';
import { listen, runAsProcess } from '../listen';

export const PLATFORM_BASE_PATH = '/integration';

export interface ReceivedCall {
  readonly n: number;
  readonly at: string;
  readonly method: string;
  /** Below /integration, e.g. /work-orders. */
  readonly path: string;
  readonly idempotencyKey?: string;
  readonly requestId?: string;
  readonly body: unknown;
}

export interface RunningPlatform {
  /** e.g. `http://127.0.0.1:8082/integration`: the mapping's platform.baseUrl. */
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedCall[];
  close(): Promise<void>;
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function header(request: http.IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function startPlatform(options: { port?: number; host?: string } = {}): Promise<RunningPlatform> {
  const host = options.host ?? '127.0.0.1';
  const received: ReceivedCall[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://platform');
      if (!url.pathname.startsWith(`${PLATFORM_BASE_PATH}/`)) return send(response, 404, { error: `no route ${request.method} ${url.pathname}` });
      const path = url.pathname.slice(PLATFORM_BASE_PATH.length);
      if (path === '/received' && request.method === 'GET') return send(response, 200, { received });
      if (path === '/received' && request.method === 'DELETE') {
        received.length = 0;
        return send(response, 204, null);
      }
      if (request.method !== 'POST') return send(response, 405, { error: 'the integration interface takes POST' });
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      } catch {
        return send(response, 400, { error: 'the body is not JSON' });
      }
      received.push({ n: received.length + 1, at: new Date().toISOString(), method: request.method, path, idempotencyKey: header(request, 'idempotency-key'), requestId: header(request, 'x-request-id'), body });
      send(response, 201, { received: received.length });
    });
  });
  const listening = await listen(server, options.port ?? 0, host);
  return { url: `http://${listening.urlHost}:${listening.port}${PLATFORM_BASE_PATH}`, port: listening.port, received, close: listening.close };
}

if (require.main === module) {
  runAsProcess('platform stand-in', () => startPlatform({ port: Number(process.env.PLATFORM_PORT ?? 8082), host: process.env.PLATFORM_HOST }));
}
