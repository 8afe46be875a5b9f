/**
 * A misbehaving (or merely recording) stand-in for the ERP: every request is recorded with its raw
 * path and body, and the test decides how to answer, including not answering properly at all.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  /** The request target exactly as it arrived (percent-encoding kept). */
  readonly url: string;
  readonly body: string;
}

export type FakeAnswer =
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'raw'; readonly status: number; readonly contentType: string; readonly text: string; readonly headers?: Readonly<Record<string, string>> }
  /** Answer after `delayMs`; the timer is cleared when the server closes, so no test waits for it. */
  | { readonly kind: 'slow'; readonly delayMs: number; readonly status: number; readonly body: unknown }
  /** Destroy the socket without any answer. */
  | { readonly kind: 'reset' };

export interface FakeErp {
  /** Base URL with the example ERP's base path, so it can stand in for ERP_URL. */
  readonly url: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

export const BASE_PATH = '/api/v1';

export async function startFakeErp(answer: (request: ReceivedRequest) => FakeAnswer): Promise<FakeErp> {
  const received: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const reply = answer(request);
      const sendJson = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      switch (reply.kind) {
        case 'json':
          sendJson(reply.status, reply.body);
          break;
        case 'raw':
          res.writeHead(reply.status, { ...reply.headers, 'content-type': reply.contentType });
          res.end(reply.text);
          break;
        case 'slow': {
          const timer = setTimeout(() => {
            timers.delete(timer);
            sendJson(reply.status, reply.body);
          }, reply.delayMs);
          timers.add(timer);
          break;
        }
        case 'reset':
          req.socket.destroy();
          break;
      }
    });
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE_PATH}`,
    received,
    close: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return closeServer(server);
    },
  };
}

function listen(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/** A URL on which nothing listens: a port that was just free, closed again (connection refused). */
export async function deadErpUrl(): Promise<string> {
  const server = http.createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  await closeServer(server);
  return `http://127.0.0.1:${port}${BASE_PATH}`;
}
