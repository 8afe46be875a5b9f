import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/core/engine';
import { head, mappingFromText } from '../support/engine';

/**
 * A reload swaps mappings between requests: a request in flight finishes on the mapping it started
 * with, and the ERP connection of an unchanged `system:` (its cache, token and limit) is kept.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function erp(delayMs = 0): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits += 1;
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ articleNo: 'A-1' })), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

const item = (suffix: string) => `  GetItem:
    calls:
      - name: item
        method: GET
        path: /items/{input.number}
        cache: { ttlMs: 60000 }
    output: '{"number": calls.item.body.articleNo & "${suffix}"}'
`;

const get = (engine: ReturnType<typeof createEngine>) => engine.handle({ method: 'GET', path: '/Items/A-1' });

describe('replacing the mappings of a running engine', () => {
  it('keeps the connection (and its cache) of an unchanged system:, drops a changed one', async () => {
    const { url, hits } = await erp();
    const engine = createEngine({ mappings: [mappingFromText(head(url) + item('-v1'))] });
    cleanups.push(() => engine.close());
    expect((await get(engine)).envelope?.data).toEqual({ number: 'A-1-v1' });
    engine.replaceMappings([mappingFromText(head(url) + item('-v2'))]);
    // Same system: and same call cache settings: the cached ERP answer serves the new mapping.
    expect((await get(engine)).envelope?.data).toEqual({ number: 'A-1-v2' });
    expect(hits()).toBe(1);
    expect(engine.connectionCount).toBe(1);
    engine.replaceMappings([mappingFromText(head(url).replace('timeoutMs: 2000', 'timeoutMs: 3000') + item('-v3'))]);
    expect(engine.connectionCount).toBe(0);
    expect((await get(engine)).envelope?.data).toEqual({ number: 'A-1-v3' });
    expect(hits()).toBe(2);
  });

  it('a request in flight finishes on the mapping it started with', async () => {
    const { url } = await erp(200);
    const engine = createEngine({ mappings: [mappingFromText(head(url) + item('-old'))] });
    cleanups.push(() => engine.close());
    const inFlight = get(engine);
    await new Promise((resolve) => setTimeout(resolve, 50));
    engine.replaceMappings([mappingFromText(head(url) + item('-new'))]);
    expect((await inFlight).envelope?.data).toEqual({ number: 'A-1-old' });
    expect((await get(engine)).envelope?.data).toEqual({ number: 'A-1-new' });
  });

  it('refuses two mappings with one name and keeps serving the old ones', async () => {
    const { url } = await erp();
    const engine = createEngine({ mappings: [mappingFromText(head(url) + item('-a'))], prefixed: true });
    cleanups.push(() => engine.close());
    const twin = mappingFromText(head(url) + item('-b'));
    expect(() => engine.replaceMappings([twin, twin])).toThrow(/two mappings are named "connectivity-test"/);
    expect((await engine.handle({ method: 'GET', path: '/connectivity-test/Items/A-1' })).envelope?.data).toEqual({ number: 'A-1-a' });
  });
});
