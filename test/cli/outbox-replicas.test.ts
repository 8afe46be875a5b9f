import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { describeWithPostgres } from '../support/postgres';
import { startServe, stoppedAfterEach } from './cli-process';

/**
 * Two replicas of the engine on one PostgreSQL (DATABASE_URL), each accepting events: every event
 * reaches the ERP once, and the events of one work order in the order they were accepted, whichever
 * replica accepted or delivers them.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

async function recordingErp(): Promise<{ url: string; placements: { docNo: string; qty: number; key: string }[] }> {
  const placements: { docNo: string; qty: number; key: string }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString(); });
    req.on('end', () => {
      const body = JSON.parse(text) as { docNo: string; qty: number };
      // A little latency, so that both replicas have deliveries under way at once.
      setTimeout(() => {
        placements.push({ docNo: body.docNo, qty: body.qty, key: String(req.headers['idempotency-key']) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, placements };
}

describeWithPostgres('outbox on PostgreSQL with two replicas', (server) => {
  it('delivers every event once, in acceptance order per work order', async () => {
    const erp = await recordingErp();
    const env = { ERP_URL: erp.url, DATABASE_URL: server().url };
    const replicas = [await startServe(['mappings/example.yaml'], env), await startServe(['mappings/example.yaml'], env)];
    running.push(...replicas);
    const sent: { docNo: string; qty: number }[] = [];
    // Events of one work order alternate between the replicas, as a load balancer would send them.
    for (let index = 1; index <= 60; index += 1) {
      const docNo = `SO-${index % 4}`;
      const response = await fetch(`${replicas[index % 2].urls[0]}/WorkOrders/ForPutWall`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workOrderNumber: docNo, itemNumber: 'A-100', completedAmount: index }),
      });
      expect(await response.json()).toMatchObject({ isResultSuccess: true });
      sent.push({ docNo, qty: index });
    }
    for (let tries = 0; tries < 300 && erp.placements.length < 60; tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(erp.placements).toHaveLength(60);
    expect(new Set(erp.placements.map((p) => p.key)).size).toBe(60);
    for (const docNo of ['SO-0', 'SO-1', 'SO-2', 'SO-3']) {
      expect(erp.placements.filter((p) => p.docNo === docNo).map((p) => p.qty)).toEqual(sent.filter((s) => s.docNo === docNo).map((s) => s.qty));
    }
  }, 90_000);
});
