import { createHmac } from 'node:crypto';
import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/core/engine';
import { createHttpApp } from '../../engine/server/app';
import { createListener } from '../../engine/server/listener';
import { mappingFromText } from '../support/engine';

/**
 * Credentials are checked from the headers before a body is read: an unauthenticated upload is answered
 * 401 while most of it is still unsent, and unauthenticated uploads trickling in never hold the slots of
 * large bodies that an authorised upload needs. Real sockets; the server counts the bytes it read.
 */

const MIB = 1024 * 1024;
const KEY = 'platform-key-1';
const SECRET = 'push-secret-1';

const MAPPING = `version: 1
name: guarded
system: { baseUrl: "http://127.0.0.1:9" }
inbound:
  auth: { type: apiKey, keys: ["\${PLATFORM_KEY}"] }
operations:
  ParseItemFile:
    file:
      maxFileBytes: ${96 * MIB}
      csv:
        output: "$.{ 'number': number }"
platform:
  baseUrl: http://127.0.0.1:9/platform
push:
  Keyed:
    auth: { type: apiKey, keys: ["\${PLATFORM_KEY}"] }
    schema: { type: object, required: [id] }
    idempotencyKey: input.id
    calls:
      - { name: send, method: POST, path: /items, body: input }
  Signed:
    auth: { type: hmac, secrets: ["\${PUSH_SECRET}"], prefix: "sha256=", timestampHeader: X-Timestamp }
    schema: { type: object, required: [id] }
    idempotencyKey: input.id
    calls:
      - { name: send, method: POST, path: /items, body: input }
`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The engine behind the real listener, with two large-body slots; `bytesRead` sums what the server read from every connection. */
async function serving(): Promise<{ port: number; bytesRead: () => number }> {
  const engine = createEngine({ mappings: [mappingFromText(MAPPING, { PLATFORM_KEY: KEY, PUSH_SECRET: SECRET })], outbox: 'inline' });
  const server = createListener(createHttpApp(engine, { largeBodyConcurrency: 2 }).callback()) as http.Server;
  const sockets = new Set<net.Socket>();
  let closedBytes = 0;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => { closedBytes += socket.bytesRead; sockets.delete(socket); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await engine.close();
  });
  return { port: (server.address() as AddressInfo).port, bytesRead: () => closedBytes + [...sockets].reduce((sum, socket) => sum + socket.bytesRead, 0) };
}

/**
 * Sends the head of a request and `sent` bytes of a body of `declared` bytes, then waits (at most 10 s)
 * for the answer's status line without sending more; the socket stays open, as a trickling client's.
 */
function partialRequest(port: number, head: string, declared: number, sent: number): { status: Promise<number | 'no answer'>; socket: net.Socket } {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const status = new Promise<number | 'no answer'>((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve('no answer'), 10_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (match) { clearTimeout(timer); resolve(Number(match[1])); }
    });
    socket.on('close', () => { clearTimeout(timer); resolve('no answer'); });
  });
  socket.write(`${head}Host: test\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
  socket.write(Buffer.alloc(sent, 0x20));
  cleanups.push(async () => { socket.destroy(); });
  return { status, socket };
}

describe('credentials before the body', () => {
  it('an unauthenticated 60 MB upload is answered 401 while 59 MB of it are unsent, and is not read', async () => {
    const { port, bytesRead } = await serving();
    const { status } = partialRequest(port, 'POST /Items/File HTTP/1.1\r\n', 60 * MIB, 1 * MIB);
    expect(await status).toBe(401);
    expect(bytesRead()).toBeLessThan(2 * MIB);
  });

  it('a wrong key on a small body gets its 401 on a connection that stays usable', async () => {
    const { port } = await serving();
    const response = await fetch(`http://127.0.0.1:${port}/WorkOrders/ForPutWall`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'wrong' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('connection')).not.toBe('close');
    expect(await response.json()).toEqual({ error: 'authentication required: the key in the X-Api-Key header is not accepted' });
  });

  it('unauthenticated uploads trickling in do not hold the large-body slots: an authorised upload is answered', async () => {
    const { port } = await serving();
    const trickling = [0, 1].map(() => partialRequest(port, 'POST /Items/File HTTP/1.1\r\n', 3 * MIB, 10 * 1024));
    const fileContent = Buffer.from(`number,name\n${`A-1,${'x'.repeat(2000)}\n`.repeat(800)}`).toString('base64');
    const authorised = await fetch(`http://127.0.0.1:${port}/Items/File`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ fileContent, fileType: 1 }), signal: AbortSignal.timeout(10_000),
    });
    expect(fileContent.length).toBeGreaterThan(2 * MIB);
    expect(authorised.status).toBe(200);
    expect(await authorised.json()).toMatchObject({ isResultSuccess: true });
    expect(await Promise.all(trickling.map((request) => request.status))).toEqual([401, 401]);
  });

  it('a push: a key not accepted, or a signature missing or stale, is refused before the body is read', async () => {
    const { port, bytesRead } = await serving();
    const keyed = partialRequest(port, 'POST /push/Keyed HTTP/1.1\r\nX-Api-Key: wrong\r\n', 60 * MIB, 1 * MIB);
    const unsigned = partialRequest(port, 'POST /push/Signed HTTP/1.1\r\n', 60 * MIB, 1 * MIB);
    const stale = partialRequest(port, `POST /push/Signed HTTP/1.1\r\nX-Signature: sha256=00\r\nX-Timestamp: ${Math.floor(Date.now() / 1000) - 3600}\r\n`, 60 * MIB, 1 * MIB);
    expect(await Promise.all([keyed.status, unsigned.status, stale.status])).toEqual([401, 401, 401]);
    expect(bytesRead()).toBeLessThan(6 * MIB);
    // A signature that is there and fresh needs the body: it is read and checked over its bytes.
    const body = JSON.stringify({ id: 'p-1' });
    const stamp = String(Math.floor(Date.now() / 1000));
    const wrong = await fetch(`http://127.0.0.1:${port}/push/Signed`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': `sha256=${createHmac('sha256', 'other').update(`${stamp}.${body}`).digest('hex')}`, 'x-timestamp': stamp }, body });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'authentication required: the signature in the X-Signature header does not match the body' });
  });
});
