/**
 * Headers that change per attempt, for every auth type: a header that reads the request being sent
 * (`request.method`, `request.url`, `request.query`), a clock or a random source is computed as each
 * attempt and each page goes out, so a retry after a 429 never repeats a nonce and a signature of the
 * mapping's own covers the page parameters the engine writes; it is no part of the answer cache's key.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, head, startEngine, type RunningEngine } from '../support/engine';

interface Seen {
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
}

/** An ERP that answers 429 (no Retry-After) to the first `busy` requests, then items in pages of 2 of 5. */
async function startErp(busy: number): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let refused = 0;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      if (refused < busy) {
        refused += 1;
        res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":"busy"}');
        return;
      }
      const url = new URL(req.url ?? '/', 'http://erp');
      // The offset in the query, or (paginate.in: body) in the JSON body.
      const offset = Number(url.searchParams.get('offset') ?? (text === '' ? 0 : (JSON.parse(text) as { offset?: number }).offset ?? 0));
      const items = [1, 2, 3, 4, 5].slice(offset, offset + 2).map((n) => ({ no: `A-${n}` }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items, no: 'A-1', name: 'Bolt' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, seen,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

let erp: Awaited<ReturnType<typeof startErp>> | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

const item = (headers: string, extra = '') => `  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
        headers:
${headers.replace(/^/gm, '          ')}
${extra.replace(/^/gm, '        ').trimEnd()}
    output: '{ "number": calls.article.body.no, "name": calls.article.body.name }'
`;

describe('headers computed per attempt', () => {
  it('a retry after a 429 without Retry-After sends a new nonce and timestamp, not the ones of the refused attempt', async () => {
    erp = await startErp(2);
    engine = await startEngine(head(erp.url, 'retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 }') + item('X-Nonce: "{$string($random())}"\nX-Time: "{$string($millis())}"\nX-Fixed: "{input.number}"'));
    expect(await engine.call('GET', '/Items/A-1')).toMatchObject({ isResultSuccess: true, data: { number: 'A-1' } });
    expect(erp.seen).toHaveLength(3);
    expect(new Set(erp.seen.map((request) => request.headers['x-nonce'])).size).toBe(3);
    expect(erp.seen.map((request) => request.headers['x-fixed'])).toEqual(['A-1', 'A-1', 'A-1']);
  });

  it('a header reads the request being sent: method, URL and query with the page parameters the engine writes, on every page', async () => {
    erp = await startErp(0);
    engine = await startEngine(head(erp.url) + `  GetWorkOrders:
    calls:
      - name: orders
        method: GET
        path: /orders
        query: { status: open }
        headers:
          X-Sign: "{request.method & ' ' & request.url}"
          X-Offset: "{request.query.offset}"
        paginate: { style: offset, pageSize: 2, items: response.body.items }
    output: 'calls.orders.items.{ "number": no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`);
    const reply = await engine.call('GET', '/WorkOrders');
    expect(reply, JSON.stringify(reply)).toMatchObject({ isResultSuccess: true });
    expect(erp.seen.map((request) => request.headers['x-offset'])).toEqual(['0', '2', '4']);
    for (const request of erp.seen) expect(request.headers['x-sign']).toBe(`GET ${erp.url.replace(/\/api$/, '')}${request.url}`);
  });

  it('with the page state in the body, a header computed per attempt reads the page it is sent with', async () => {
    erp = await startErp(1);
    engine = await startEngine(head(erp.url, 'retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5 }') + `  GetWorkOrders:
    calls:
      - name: orders
        method: POST
        path: /orders
        body: '{ "offset": page.offset, "limit": page.limit }'
        headers:
          X-Page: "{$string(page.offset) & '@' & $string($millis())}"
        retry: { idempotent: true }
        paginate: { style: offset, in: body, pageSize: 2, items: response.body.items }
    output: 'calls.orders.items.{ "number": no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`);
    const reply = await engine.call('GET', '/WorkOrders');
    expect(reply, JSON.stringify(reply)).toMatchObject({ isResultSuccess: true });
    // The first page was refused once (429) and sent again: four requests, each with its page's offset.
    expect(erp.seen.map((request) => String(request.headers['x-page']).split('@')[0])).toEqual(['0', '0', '2', '4']);
  });

  it('an answer is found in the cache although a header holds a timestamp: the key leaves it out', async () => {
    erp = await startErp(0);
    engine = await startEngine(head(erp.url) + item('X-Time: "{$string($millis())}"\nX-Url: "{request.url}"', 'cache: { ttlMs: 60000 }'));
    for (let round = 0; round < 3; round += 1) expect(await engine.call('GET', '/Items/A-1')).toMatchObject({ isResultSuccess: true });
    expect(erp.seen).toHaveLength(1);
    // A header that does not change is still part of the key: another value is another answer.
    await engine.close();
    engine = await startEngine(head(erp.url) + item('X-Lang: "{input.number = \'A-1\' ? \'de\' : \'en\'}"', 'cache: { ttlMs: 60000 }'));
    await engine.call('GET', '/Items/A-1');
    await engine.call('GET', '/Items/A-1');
    expect(erp.seen).toHaveLength(2);
  });
});
