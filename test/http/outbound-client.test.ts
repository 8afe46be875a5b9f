/**
 * The outbound client on its own, against a real HTTP server: what goes on the wire besides the
 * mapping's headers, compressed answers (read as their content, error pages too), and the failures a
 * compressed answer can bring (a corrupt body, a small body that unpacks past the size limit).
 */
import { createServer } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, TransportError, type HttpClient, type OutboundRequest } from '../../engine/http/client';
import { engineVersion } from '../../engine/paths';
import { startErpAnswering, type Answer, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: MisbehavingErp | undefined;
let client: HttpClient | undefined;

afterEach(async () => {
  client?.close();
  await erp?.close();
  erp = undefined;
  client = undefined;
});

async function call(answer: Answer, request: Partial<OutboundRequest> = {}) {
  erp = await startErpAnswering(() => answer);
  client = createHttpClient();
  return client.send({
    callName: 'orders', method: 'GET', url: new URL(`${erp.url}/orders`), headers: { Accept: 'application/json' },
    timeoutMs: 2000, responseType: 'json', maxResponseBytes: 1024 * 1024, ...request,
  });
}

const ORDERS = { orders: [{ number: 'SO-1', lines: 3 }, { number: 'SO-2', lines: 1 }] };
const compressed = (encoding: string, bytes: Buffer, status = 200): Answer => ({ status, raw: bytes, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });

describe('outbound client', () => {
  it('asks for compressed answers and names itself, unless the mapping sets those headers', async () => {
    await call({ status: 200, body: ORDERS });
    expect(erp!.requests[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(erp!.requests[0]!.headers['user-agent']).toBe(`adapter-engine/${engineVersion()}`);
    await erp!.close();
    client!.close();
    await call({ status: 200, body: ORDERS }, { headers: { 'Accept-Encoding': 'identity', 'User-Agent': 'acme-adapter/2' } });
    expect(erp!.requests[0]!.headers['accept-encoding']).toBe('identity');
    expect(erp!.requests[0]!.headers['user-agent']).toBe('acme-adapter/2');
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ])('reads a %s answer as its content', async (encoding, compress) => {
    const response = await call(compressed(encoding, compress(Buffer.from(JSON.stringify(ORDERS)))));
    expect(response.status).toBe(200);
    expect(response.body).toEqual(ORDERS);
    expect(response.bodyError).toBeUndefined();
  });

  it('undoes several codings, last applied first', async () => {
    const twice = gzipSync(deflateSync(Buffer.from(JSON.stringify(ORDERS))));
    expect((await call(compressed('deflate, gzip', twice))).body).toEqual(ORDERS);
  });

  it('reads a compressed error page too: its text is what people are shown', async () => {
    const response = await call({ status: 500, raw: gzipSync('<html>Service down for maintenance</html>'), headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' } });
    expect(response.status).toBe(500);
    expect(response.bodyError).toContain('Service down for maintenance');
  });

  it('leaves a coding it does not know as it is', async () => {
    const response = await call(compressed('x-custom', Buffer.from(JSON.stringify(ORDERS))));
    expect(response.body).toEqual(ORDERS);
  });

  it('reports a corrupt compressed body as a transport failure that says so', async () => {
    const error = await call(compressed('gzip', Buffer.from('this is not gzip at all'))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).code).toBe('NETWORK');
    expect((error as TransportError).message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/\S*\/orders: the answer's compressed body could not be decompressed/);
  });

  it('counts the size limit after decompression: a small body that unpacks to 5 MB is cut off', async () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ filler: 'x'.repeat(5 * 1024 * 1024) })));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const error = await call(compressed('gzip', bomb)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).code).toBe('TOO_LARGE');
  });

  it('refuses an answer whose declared length is over the limit before reading it', async () => {
    const error = await call({ status: 200, body: { filler: 'x'.repeat(4096) } }, { maxResponseBytes: 1000 }).catch((caught: unknown) => caught);
    expect((error as TransportError).code).toBe('TOO_LARGE');
    expect((error as TransportError).message).toContain('response larger than 1000 bytes');
  });

  it('does not follow a redirect: the 302 is the answer', async () => {
    const response = await call({ status: 302, headers: { location: 'http://127.0.0.1:9/elsewhere' }, body: { moved: true } });
    expect(response.status).toBe(302);
    expect(erp!.requests).toHaveLength(1);
  });

  it('keeps every Set-Cookie of an answer, one per line', async () => {
    // The stand-in ERP writes headers from an object; two cookies need a server of their own.
    const server = createServer((_req, res) => {
      res.setHeader('set-cookie', ['a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT', 'b=2']);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createHttpClient();
    try {
      const address = server.address() as { port: number };
      const response = await client.send({ callName: 'c', method: 'GET', url: new URL(`http://127.0.0.1:${address.port}/`), headers: {}, timeoutMs: 2000, responseType: 'json', maxResponseBytes: 1024 });
      expect(response.headers['set-cookie']).toBe('a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT\nb=2');
    } finally {
      client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
