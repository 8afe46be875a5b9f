import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createListener, readTlsFiles, LISTENER_TIMEOUTS, type TlsFiles } from '../../engine/server/listener';

const fixture = (name: string) => path.join(__dirname, '..', 'fixtures', 'tls', name);
const pem = (name: string) => fs.readFileSync(fixture(name));
const SERVER: TlsFiles = { certFile: fixture('server.pem'), keyFile: fixture('server.key') };

const servers: (http.Server | https.Server)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An HTTPS listener that answers with the common name of the client's certificate, if any. */
async function listening(tls: TlsFiles): Promise<{ port: number; served: () => number }> {
  let served = 0;
  const server = createListener((request, response) => {
    served += 1;
    const peer = (request.socket as TLSSocket).getPeerCertificate();
    response.end(`hello ${peer.subject?.CN ?? 'anonymous'}`);
  }, tls);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, served: () => served };
}

/** node:https rather than fetch: fetch cannot present a client certificate. */
function get(port: number, options: https.RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/', agent: false, ca: pem('ca.pem'), ...options }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('createListener', () => {
  it('serves plain HTTP without TLS files, with timeouts fit for uploads and load balancers', () => {
    const server = createListener(() => undefined);
    expect(server).not.toBeInstanceOf(https.Server);
    expect(server.keepAliveTimeout).toBeGreaterThan(60_000);
    expect(server.requestTimeout).toBeGreaterThanOrEqual(120_000);
    expect(server.headersTimeout).toBeLessThanOrEqual(server.requestTimeout);
  });

  describe('drops slow clients (issue 18, item 8: "slow clients hold connections for minutes")', () => {
    // The same mechanism as in `serve`, with the limits cut from 30 s and 5 min to what a test can wait for.
    const SHORT = { ...LISTENER_TIMEOUTS, headersTimeout: 400, requestTimeout: 800, connectionsCheckingInterval: 100 };

    /** Sends `head`, then one byte of `trickle` every 100 ms; what the server wrote before it closed the connection. */
    async function trickling(head: string, trickle: string): Promise<string> {
      const server = createListener((request, response) => {
        request.resume();
        request.on('end', () => response.end('complete'));
      }, undefined, SHORT);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => { answer += chunk.toString(); });
      socket.on('error', () => undefined);
      socket.write(head);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++]);
      }, 100);
      // Bounded: a client that is not dropped keeps trickling for the whole of `trickle` (30 s).
      const closed = await new Promise<boolean>((resolve) => {
        socket.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 10_000);
      });
      clearInterval(timer);
      socket.destroy();
      expect(closed).toBe(true);
      return answer;
    }

    it('a client that sends its headers a byte at a time (slowloris)', async () => {
      const answer = await trickling('GET / HTTP/1.1\r\nHost: x\r\n', 'X-Slow: a'.padEnd(300, 'a'));
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    }, 15_000);

    it('a client that sends its body a byte at a time', async () => {
      const answer = await trickling('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 300\r\n\r\n', '{'.padEnd(300, ' '));
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    }, 15_000);
  });

  it('serves HTTPS to a client that trusts the CA', async () => {
    const { port } = await listening(SERVER);
    expect(await get(port, {})).toEqual({ status: 200, body: 'hello anonymous' });
  });

  describe('with --tls-client-ca (mutual TLS)', () => {
    const MUTUAL: TlsFiles = { ...SERVER, clientCaFile: fixture('ca.pem') };

    it('serves a client presenting a certificate signed by the CA', async () => {
      const { port } = await listening(MUTUAL);
      expect(await get(port, { cert: pem('client.pem'), key: pem('client.key') })).toEqual({ status: 200, body: 'hello adapter-engine test client' });
    });

    // TLS 1.3: the client may finish its side of the handshake before the server's alert arrives, so
    // the failure is an alert or a reset, depending on timing; what matters is that it is never served.
    it('refuses a client without a certificate', async () => {
      const { port, served } = await listening(MUTUAL);
      await expect(get(port, {})).rejects.toThrow();
      expect(served()).toBe(0);
    });

    // Node completes the handshake and then destroys the socket: the client sees a reset, not an alert.
    it('refuses a client whose certificate the CA did not sign', async () => {
      const { port, served } = await listening(MUTUAL);
      await expect(get(port, { cert: pem('self-signed.pem'), key: pem('self-signed.key') })).rejects.toThrow();
      expect(served()).toBe(0);
    });
  });
});

describe('readTlsFiles', () => {
  it('names the flag and the file that cannot be read', () => {
    expect(() => readTlsFiles({ ...SERVER, certFile: fixture('missing.pem') })).toThrow(/^--tls-cert .*missing\.pem: cannot read the certificate \(ENOENT\)$/);
    expect(() => readTlsFiles({ ...SERVER, keyFile: fixture('missing.key') })).toThrow(/^--tls-key .*missing\.key: cannot read the private key/);
    expect(() => readTlsFiles({ ...SERVER, clientCaFile: fixture('missing-ca.pem') })).toThrow(/^--tls-client-ca .*missing-ca\.pem: cannot read/);
  });

  it('says when the key is not the private key of the certificate', () => {
    expect(() => readTlsFiles({ ...SERVER, keyFile: fixture('self-signed.key') })).toThrow(/^--tls-key .*self-signed\.key is not the private key of --tls-cert .*server\.pem$/);
  });

  it('names the file that is not what its flag expects', () => {
    expect(() => readTlsFiles({ certFile: fixture('server.key'), keyFile: fixture('server.key') })).toThrow(/^--tls-cert .*server\.key is not a PEM certificate \(/);
    expect(() => readTlsFiles({ certFile: fixture('server.pem'), keyFile: fixture('server.pem') })).toThrow(/^--tls-key .*server\.pem is not a PEM private key \(/);
    // OpenSSL itself accepts this, and every client would then be refused.
    expect(() => readTlsFiles({ ...SERVER, clientCaFile: fixture('server.key') })).toThrow(/^--tls-client-ca .*server\.key holds no PEM certificate/);
  });

  it('asks for a client certificate only with a client CA', () => {
    expect(readTlsFiles(SERVER)).not.toHaveProperty('requestCert');
    expect(readTlsFiles({ ...SERVER, clientCaFile: fixture('ca.pem') })).toMatchObject({ requestCert: true, rejectUnauthorized: true });
  });

  it('names an unreadable directory given as a file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
    try {
      expect(() => readTlsFiles({ ...SERVER, certFile: dir })).toThrow(/^--tls-cert .*: cannot read the certificate \(EISDIR\)$/);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
