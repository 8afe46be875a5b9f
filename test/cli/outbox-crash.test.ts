import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startServe, tempDir, stoppedAfterEach } from './cli-process';

/**
 * Nothing accepted is lost: events answered Succeed reach the ERP after the engine is killed with
 * SIGKILL (no chance to clean up) and started again, each exactly once, in order per work order.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

interface Placement { docNo: string; qty: number; key: string }

async function switchableErp(): Promise<{ url: string; up: () => void; placements: Placement[] }> {
  let isUp = false;
  const placements: Placement[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString(); });
    req.on('end', () => {
      if (!isUp) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
      const body = JSON.parse(text) as { docNo: string; qty: number };
      placements.push({ docNo: body.docNo, qty: body.qty, key: String(req.headers['idempotency-key']) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, up: () => { isUp = true; }, placements };
}

async function eventually(check: () => boolean, what: string, tries = 300): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}

describe('outbox across a crash', () => {
  it('events accepted before kill -9 are delivered after the restart, each once, in order per work order', async () => {
    const erp = await switchableErp();
    const stateDir = tempDir();
    const first = await startServe(['--state-dir', stateDir, 'mappings/example.yaml'], { ERP_URL: erp.url });
    running.push(first);
    const sent: { docNo: string; qty: number }[] = [];
    for (let index = 1; index <= 30; index += 1) {
      const docNo = `SO-${index % 3}`;
      const response = await fetch(`${first.urls[0]}/WorkOrders/ForPutWall`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workOrderNumber: docNo, itemNumber: 'A-100', completedAmount: index, confirmedLocationName: 'PW-1', userEmail: 'op@example.com' }),
      });
      expect(await response.json()).toMatchObject({ isResultSuccess: true, result: 1 });
      sent.push({ docNo, qty: index });
    }
    first.child.kill('SIGKILL');
    expect((await first.exited).code).toBeNull();

    const pending = await runCli(['outbox', 'list', '--state-dir', stateDir, '--json']);
    expect(JSON.parse(pending.stdout)).toHaveLength(30);

    erp.up();
    const second = await startServe(['--state-dir', stateDir, 'mappings/example.yaml'], { ERP_URL: erp.url });
    running.push(second);
    await eventually(() => erp.placements.length >= 30, 'all 30 events delivered');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(erp.placements).toHaveLength(30);
    expect(new Set(erp.placements.map((p) => p.key)).size).toBe(30);
    for (const docNo of ['SO-0', 'SO-1', 'SO-2']) {
      expect(erp.placements.filter((p) => p.docNo === docNo).map((p) => p.qty)).toEqual(sent.filter((s) => s.docNo === docNo).map((s) => s.qty));
    }
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 90_000);
});
