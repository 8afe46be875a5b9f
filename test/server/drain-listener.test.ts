import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { drain, trackRequests } from '../../engine/server/drain';
import { createListener, readTlsFiles } from '../../engine/server/listener';
import { ROOT } from '../cli/cli-process';

const fixture = (name: string) => path.join(ROOT, 'test', 'fixtures', 'tls', name);

async function listening(handler: http.RequestListener) {
  const server = createListener(handler) as http.Server;
  const tracker = trackRequests(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, tracker, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('drain', () => {
  it('answers a request in flight, closes its keep-alive connection, and resolves finished', async () => {
    const { server, tracker, url } = await listening((_req, res) => setTimeout(() => res.end('done'), 300));
    const agent = new http.Agent({ keepAlive: true });
    const answered = new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
      http.get(url, { agent }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      }).on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await drain(server, tracker, { timeoutMs: 5000 });
    expect(await answered).toEqual({ status: 200, body: 'done', connection: 'close' });
    expect(result).toMatchObject({ finished: true, inFlightAtStart: 1, forcedConnections: 0 });
    agent.destroy();
  });

  it('cuts what is left after the timeout and says so', async () => {
    const { server, tracker, url } = await listening(() => undefined);
    const failed = new Promise<string>((resolve) => {
      http.get(url, () => resolve('answered')).on('error', (error) => resolve(error.message));
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await drain(server, tracker, { timeoutMs: 100 });
    expect(result).toMatchObject({ finished: false, inFlightAtStart: 1, forcedConnections: 1 });
    expect(await failed).toMatch(/socket hang up|ECONNRESET/);
  });
});

describe('the TLS files of serve', () => {
  it('a missing file and a key that does not belong to the certificate are named with their flag', () => {
    expect(() => readTlsFiles({ certFile: fixture('nope.pem'), keyFile: fixture('server.key') })).toThrow(/^--tls-cert .*nope\.pem: cannot read the certificate \(ENOENT\)$/);
    expect(() => readTlsFiles({ certFile: fixture('server.pem'), keyFile: fixture('self-signed.key') })).toThrow(/--tls-key .*self-signed\.key is not the private key of --tls-cert/);
    expect(readTlsFiles({ certFile: fixture('server.pem'), keyFile: fixture('server.key'), clientCaFile: fixture('ca.pem') })).toMatchObject({ requestCert: true, rejectUnauthorized: true });
  });
});
