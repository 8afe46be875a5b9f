import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in ERP's server: 127.0.0.1 on a free port, the request's body read whole before `answer` runs. */
export interface StandIn {
  readonly url: string;
  /** Requests answered so far (every page and call counts one). */
  readonly requests: () => number;
  close(): Promise<void>;
}

export interface Answer {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

export async function listen(answer: (method: string, url: URL, headers: http.IncomingHttpHeaders, body: string) => Answer): Promise<StandIn> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests += 1;
      let reply: Answer;
      try {
        reply = answer(request.method ?? 'GET', new URL(request.url ?? '/', 'http://erp'), request.headers, Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        reply = { status: 500, type: 'text/plain', text: (error as Error).message };
      }
      response.writeHead(reply.status, { 'content-type': reply.type });
      response.end(reply.text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export const json = (value: unknown, status = 200): Answer => ({ status, type: 'application/json', text: JSON.stringify(value) });
