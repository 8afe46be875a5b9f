import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { drain, trackRequests, type DrainResult } from '../../engine/server/drain';
import { createListener } from '../../engine/server/listener';

const servers: http.Server[] = [];
afterEach(() => {
  // drain closes them; this only cleans up after a failed test.
  for (const server of servers.splice(0)) server.closeAllConnections();
});

async function listening(handler: http.RequestListener, server = createListener(handler) as http.Server) {
  const tracker = trackRequests(server);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, tracker, port: (server.address() as AddressInfo).port };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function get(port: number, agent?: http.Agent): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, connection: response.headers.connection }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** Resolves with how the connection attempt ended: 'connected' or the error code. */
function connect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => { socket.destroy(); resolve('connected'); });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('drain', () => {
  it('answers a request in flight in full, ends its keep-alive connection, and resolves finished', async () => {
    const { server, tracker, port } = await listening((_request, response) => setTimeout(() => response.end('done'), 300));
    const agent = new http.Agent({ keepAlive: true });
    const answered = get(port, agent);
    await pause(50);
    const result = await drain(server, tracker, { timeoutMs: 10_000 });
    expect(await answered).toEqual({ status: 200, body: 'done', connection: 'close' });
    expect(result).toMatchObject({ finished: true, inFlightAtStart: 1, forcedConnections: 0 });
    expect(result.ms).toBeLessThan(5_000);
    expect(server.listening).toBe(false);
    agent.destroy();
  });

  it('refuses a new connection once it has begun', async () => {
    const { server, tracker, port } = await listening((_request, response) => setTimeout(() => response.end('done'), 300));
    const answered = get(port);
    await pause(50);
    const draining = drain(server, tracker, { timeoutMs: 10_000 });
    expect(await connect(port)).toBe('ECONNREFUSED');
    expect((await answered).status).toBe(200);
    expect((await draining).finished).toBe(true);
  });

  it('closes an idle keep-alive connection after a short grace, not after the requests in flight', async () => {
    const { server, tracker, port } = await listening((request, response) => {
      if (request.headers['x-slow']) setTimeout(() => response.end('slow'), 2_000);
      else response.end('fast');
    });
    // A raw socket, so the test sees exactly when the server closes it.
    const idle = net.connect(port, '127.0.0.1');
    const idleClosed = new Promise<void>((resolve) => idle.on('close', () => resolve()));
    idle.on('error', () => undefined);
    const firstAnswer = new Promise((resolve) => idle.once('data', resolve));
    idle.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
    expect(String(await firstAnswer)).toMatch(/^HTTP\/1\.1 200[\s\S]*keep-alive[\s\S]*fast$/i);

    const slow = new Promise<void>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, headers: { 'x-slow': '1' } }, (response) => response.resume().on('end', resolve)).on('error', reject);
    });
    await pause(50);
    let drained: DrainResult | undefined;
    const draining = drain(server, tracker, { timeoutMs: 10_000 }).then((result) => { drained = result; });
    await idleClosed;
    expect(drained).toBeUndefined();
    expect(tracker.inFlight).toBe(1);
    await slow;
    await draining;
    expect(drained).toMatchObject({ finished: true, inFlightAtStart: 1 });
  });

  it('cuts a request that is not answered within the timeout, and says so', async () => {
    const { server, tracker, port } = await listening(() => undefined);
    const failed = get(port).then(() => 'answered', (error: NodeJS.ErrnoException) => error.code ?? error.message);
    await pause(50);
    const result = await drain(server, tracker, { timeoutMs: 100 });
    expect(result.finished).toBe(false);
    expect(result.inFlightAtStart).toBe(1);
    expect(result.forcedConnections).toBeGreaterThanOrEqual(1);
    expect(result.ms).toBeLessThan(5_000);
    expect(await failed).toMatch(/ECONNRESET|socket hang up/);
  });

  it('is not held up by an HTTPS connection that never sends its TLS handshake', async () => {
    const tls = path.join(__dirname, '..', 'fixtures', 'tls');
    const server = createListener(() => undefined, { certFile: path.join(tls, 'server.pem'), keyFile: path.join(tls, 'server.key') }) as http.Server;
    const { tracker, port } = await listening(() => undefined, server);
    // A TCP health check, say: Node's closeAllConnections does not see it, and server.close would wait for it.
    const silent = net.connect(port, '127.0.0.1');
    silent.on('error', () => undefined);
    const silentClosed = new Promise<void>((resolve) => silent.on('close', () => resolve()));
    await new Promise((resolve) => silent.on('connect', resolve));
    await pause(50);
    const result = await drain(server, tracker, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ finished: true, inFlightAtStart: 0, forcedConnections: 0 });
    expect(result.ms).toBeLessThan(5_000);
    await silentClosed;
  });
});
