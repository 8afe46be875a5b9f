import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRecordingErp } from '../cli/cli-process';
import { head, startEngine } from '../support/engine';

/**
 * What the server accepts as a body: JSON, or a body without a content type (the platform's way). A
 * browser can post text/plain or a form to any site without asking first; such bodies never reach an
 * operation. A body over the limit gets its envelope, not a connection reset.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  vi.restoreAllMocks();
});

const EVENT = `  CancelPutWallItem:
    calls:
      - name: cancel
        method: POST
        path: /cancellations
        body: '{ "docNo": input.workOrderNumber }'
`;
const BODY = JSON.stringify({ workOrderNumber: 'SO-1', itemNumber: 'A-1' });

async function serving(bodyLimit?: number) {
  const erp = await startRecordingErp({});
  cleanups.push(erp.close);
  const engine = await startEngine(head(erp.url) + EVENT, { bodyLimit });
  cleanups.push(engine.close);
  return { erp, engine };
}

describe('request bodies', () => {
  it('JSON content types and a missing content type are read; text/plain and forms are refused without calling the ERP', async () => {
    const { erp, engine } = await serving();
    const send = (type: string | undefined) => fetch(`${engine.url}/WorkOrders/CancelPutWallItem`, {
      method: 'POST', body: type === undefined ? new Blob([BODY]) : BODY, headers: type === undefined ? {} : { 'content-type': type },
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { isResultSuccess: boolean; result: number; validationStatus: unknown } }));
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/vnd.platform+json', undefined]) {
      expect((await send(type)).body, String(type)).toMatchObject({ isResultSuccess: true });
    }
    expect(erp.received).toHaveLength(4);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const answer = await send(type);
      expect(answer.status).toBe(200);
      // InvalidInput, the route's answer to a body it cannot read.
      expect(answer.body).toMatchObject({ isResultSuccess: false, result: 5 });
      expect(JSON.stringify(answer.body.validationStatus)).toContain(`not ${type.split(';')[0]}`);
    }
    expect(erp.received).toHaveLength(4);
  });

  it('a body over the limit is answered with the envelope, not a reset', async () => {
    const { erp, engine } = await serving(1000);
    const response = await fetch(`${engine.url}/WorkOrders/CancelPutWallItem`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ workOrderNumber: 'x'.repeat(5_000_000) }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ isResultSuccess: false });
    expect(erp.received).toHaveLength(0);
  });
});

describe('large bodies', () => {
  it('are handled a few at a time (largeBodyConcurrency); small ones are not held back', async () => {
    let active = 0;
    let most = 0;
    const erp = http.createServer((req, res) => {
      active += 1;
      most = Math.max(most, active);
      req.resume();
      setTimeout(() => {
        active -= 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, 150);
    });
    await new Promise<void>((resolve) => erp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => { erp.close(() => resolve()); erp.closeAllConnections(); }));
    const engine = await startEngine(head(`http://127.0.0.1:${(erp.address() as AddressInfo).port}`) + EVENT, { largeBodyConcurrency: 1 });
    cleanups.push(engine.close);
    const send = (size: number) => fetch(`${engine.url}/WorkOrders/CancelPutWallItem`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ workOrderNumber: 'SO-1', itemNumber: 'x'.repeat(size) }),
    }).then((response) => response.json() as Promise<{ isResultSuccess: boolean }>);
    const large = await Promise.all([send(1_500_000), send(1_500_000), send(1_500_000)]);
    expect(large.every((answer) => answer.isResultSuccess)).toBe(true);
    expect(most).toBe(1);
    most = 0;
    await Promise.all([send(10), send(10), send(10)]);
    expect(most).toBe(3);
  });

  it('are parsed, then the event loop turns before the engine handles them; a small body is handled in the turn it was parsed in', async () => {
    // JSON.parse of a 10 MB export takes 15–25 ms: other requests must wait for it or for the engine's
    // first slice of work, not for both. Turns are counted by a setImmediate loop.
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    cleanups.push(async () => {
      counting = false;
    });
    const { engine } = await serving();
    const whenParsedAndHandled = async (itemNumber: string) => {
      const body = JSON.stringify({ workOrderNumber: 'SO-1', itemNumber });
      let parsedAt = -1;
      let handledAt = -1;
      const parse = JSON.parse;
      const parseSpy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
        if (text === body) parsedAt = turns;
        return parse(text, reviver) as unknown;
      });
      const handle = engine.engine.handle.bind(engine.engine);
      const handleSpy = vi.spyOn(engine.engine, 'handle').mockImplementation((request) => {
        if (request.path === '/WorkOrders/CancelPutWallItem') handledAt = turns;
        return handle(request);
      });
      const answer = await engine.postRaw('/WorkOrders/CancelPutWallItem', body);
      parseSpy.mockRestore();
      handleSpy.mockRestore();
      return { parsedAt, handledAt, success: (answer.body as { isResultSuccess?: unknown }).isResultSuccess };
    };
    const large = await whenParsedAndHandled('A'.repeat(2_000_000));
    expect(large.success).toBe(true);
    expect(large.parsedAt).toBeGreaterThan(0);
    expect(large.handledAt).toBeGreaterThan(large.parsedAt);
    const small = await whenParsedAndHandled('A-1');
    expect(small.success).toBe(true);
    expect(small.parsedAt).toBeGreaterThan(0);
    expect(small.handledAt).toBe(small.parsedAt);
  });
});
