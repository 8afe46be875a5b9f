import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { head, startEngine } from '../support/engine';

/** When the platform gives up on a request, the engine makes no further ERP call for it. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('a request the platform abandoned', () => {
  it('makes no call after the platform closed the connection', async () => {
    const received: string[] = [];
    const erp = http.createServer((req, res) => {
      received.push(req.url ?? '');
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"articleNo":"A-1"}'), 300);
    });
    await new Promise<void>((resolve) => erp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => { erp.close(() => resolve()); erp.closeAllConnections(); }));
    const engine = await startEngine(`${head(`http://127.0.0.1:${(erp.address() as AddressInfo).port}`)}  GetItem:
    calls:
      - { name: first, method: GET, path: /first }
      - { name: second, method: GET, path: /second }
    output: '{"number": calls.second.body.articleNo}'
`);
    cleanups.push(engine.close);
    await expect(fetch(`${engine.url}/Items/A-1`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(received).toEqual(['/first']);
    // The same route still answers a platform that waits.
    received.length = 0;
    expect(await engine.call('GET', '/Items/A-1')).toMatchObject({ isResultSuccess: true, data: { number: 'A-1' } });
    expect(received).toEqual(['/first', '/second']);
  });
});
