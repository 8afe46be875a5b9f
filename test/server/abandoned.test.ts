import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { head, startEngine } from '../support/engine';

/**
 * Issue 18, item 8 ("work continues after the client left"): when the platform gives up on a request,
 * the engine makes no further ERP call for it, and the call under way is cut off instead of running to
 * its timeout.
 */
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

  it('cuts off the ERP call under way when the platform closes the connection', async () => {
    let erpSawClose: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      erpSawClose = resolve;
    });
    const received: string[] = [];
    // An ERP that takes its time: the answer would come after a minute, within the call's timeout.
    const erp = http.createServer((req, res) => {
      received.push(req.url ?? '');
      const answer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"articleNo":"A-1"}'), 60_000);
      res.on('close', () => {
        clearTimeout(answer);
        erpSawClose();
      });
    });
    await new Promise<void>((resolve) => erp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => { erp.close(() => resolve()); erp.closeAllConnections(); }));
    const mapping = `${head(`http://127.0.0.1:${(erp.address() as AddressInfo).port}`).replace('timeoutMs: 2000', 'timeoutMs: 120000')}  GetItem:
    calls:
      - { name: slow, method: GET, path: /slow }
    output: '{"number": calls.slow.body.articleNo}'
`;
    const engine = await startEngine(mapping);
    cleanups.push(engine.close);
    await expect(fetch(`${engine.url}/Items/A-1`, { signal: AbortSignal.timeout(200) })).rejects.toThrow();
    // Bounded: without the cut-off the ERP's connection stays open for the call's whole two minutes.
    const cutOff = await Promise.race([closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000))]);
    expect(cutOff).toBe(true);
    expect(received).toEqual(['/slow']);
  }, 20_000);
});
