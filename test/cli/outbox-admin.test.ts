import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, eventually, ROOT, runCli, startServe, stoppedAfterEach, tempDir, writeFile } from './cli-process';
import { OUTBOX_PLACEMENT } from '../support/outbox-operation';

/**
 * Support staff without the database's credentials: `outbox` through a running server's admin listener
 * (its token only), times as dates, ids shortened as git's, and `retry` of a pending event that waits
 * out a long backoff, which then goes out at once.
 */
const MAPPING = `version: 1
name: acme
system:
  baseUrl: \${ERP_URL}
operations:
${OUTBOX_PLACEMENT}`;

const { running, cleanups } = stoppedAfterEach(afterEach);

/** An ERP in maintenance (503, come back in 10 minutes) until `up()`; it refuses SO-BAD for good (422). */
async function startErp(): Promise<{ url: string; up(): void; received: string[] }> {
  let isUp = false;
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => {
      if (body.includes('SO-BAD')) return res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"unknown order"}');
      if (!isUp) return res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '600' }).end('{"error":"maintenance"}');
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, up: () => { isUp = true; }, received };
}

interface Listed { id: string; status: string; orderingKey: string; attempts: number }

describe('adapter-engine outbox --admin', () => {
  it('lists, shows, retries and drops events through the admin listener, with dates and short ids', async () => {
    const erp = await startErp();
    const dir = tempDir();
    const stateDir = path.join(dir, 'state');
    const serving = await startServe(['--admin-port', '0', '--state-dir', stateDir, writeFile(dir, 'acme.yaml', MAPPING)], { ERP_URL: erp.url });
    running.push(serving);
    const admin = serving.adminUrl as string;
    const place = (docNo: string) => fetch(`${serving.urls[0]}/WorkOrders/ForPutWall`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workOrderNumber: docNo, itemNumber: 'A-1', completedAmount: 1, confirmedLocationName: 'B1', userEmail: 'u@example.com' }),
    });
    expect((await place('SO-1')).status).toBe(200);

    // The journal's ids shortened: one request, so its process's prefix names it; with two it is ambiguous.
    const [request] = JSON.parse((await runCli(['requests', '--admin', admin, '--json'])).stdout) as { id: string }[];
    const requestPrefix = request.id.slice(0, 8);
    const byPrefix = await runCli(['requests', 'show', requestPrefix, '--admin', admin]);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toContain(`request ${request.id}  ConfirmPutWallPlacement`);
    expect((await place('SO-BAD')).status).toBe(200);
    const ambiguous = await runCli(['requests', 'show', requestPrefix, '--admin', admin]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`${requestPrefix} is ambiguous: it starts 2 requests`);

    const events = async () => ((await (await fetch(`${admin}/outbox?status=pending,dead,delivered,dropped`, { headers: ADMIN_AUTH })).json()) as { events: Listed[] }).events;
    // SO-1 tried once (503, back in ten minutes), SO-BAD dead (422).
    let listed: Listed[] = [];
    const settled = () => listed.some((e) => e.orderingKey === 'SO-1' && e.attempts >= 1 && e.status === 'pending') && listed.some((e) => e.status === 'dead');
    for (let tries = 0; tries < 100 && !settled(); tries += 1) {
      listed = await events();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pending = listed.find((e) => e.orderingKey === 'SO-1') as Listed;
    const dead = listed.find((e) => e.orderingKey === 'SO-BAD') as Listed;
    expect([pending.status, dead.status]).toEqual(['pending', 'dead']);

    const table = await runCli(['outbox', 'list', '--admin', admin]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${pending.id} +pending +event +acme +ConfirmPutWallPlacement +SO-1 +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z +\\d+s +1 +503`));
    const shown = await runCli(['outbox', 'show', pending.id.slice(0, 8), '--admin', admin]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`"id": "${pending.id}"`);
    expect(shown.stdout).toMatch(/"acceptedAt": "\d{4}-\d\d-\d\dT[\d:.]+Z"/);
    expect(shown.stdout).toMatch(/"nextAttemptAt": "\d{4}-\d\d-\d\dT[\d:.]+Z"/);
    // docs/event-delivery.md shows such an event: the same fields, in the same order, of the same kinds.
    const documented = /`outbox show` prints times as dates[^`]*```json\n([\s\S]*?)```/.exec(fs.readFileSync(path.join(ROOT, 'docs', 'event-delivery.md'), 'utf8'))?.[1];
    const shape = (value: unknown): unknown => (value === null || typeof value !== 'object' ? (typeof value === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(value) ? 'date' : typeof value) : Object.entries(value).map(([key, item]) => [key, shape(item)]));
    expect(shape(JSON.parse(documented ?? 'null'))).toEqual(shape(JSON.parse(shown.stdout)));
    const unknown = await runCli(['outbox', 'show', 'ffff0000', '--admin', admin]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('no event ffff0000 in the outbox');
    const tokenless = await runCli(['outbox', 'list', '--admin', admin], { env: { ADMIN_TOKENS: '' } });
    expect(tokenless.code).toBe(2);
    expect(tokenless.stderr).toContain('asks for a token: set ADMIN_TOKEN');

    // The ERP is back; SO-1 would wait ten minutes (its Retry-After): retry sends it now.
    erp.up();
    const retried = await runCli(['outbox', 'retry', pending.id.slice(0, 8), '--admin', admin]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(`${pending.id}: was pending; due now`);
    await eventually(() => erp.received.length === 1, 'SO-1 delivered after the retry', 100);
    expect(erp.received).toEqual(['{"docNo":"SO-1"}']);

    // The dead event's request, exported with its delivery (the ERP's 422), replays as a passing case.
    const [deadRequest] = JSON.parse((await runCli(['requests', '--admin', admin, '--contains', 'SO-BAD', '--json'])).stdout) as { id: string }[];
    const testFile = path.join(dir, 'acme.test.yaml');
    const exported = await runCli(['requests', 'export', deadRequest.id, '--as-test', '--out', testFile, '--admin', admin]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(fs.readFileSync(testFile, 'utf8')).toMatch(/placement:\n +status: 422\n +body:\n +error: unknown order\n[\s\S]*delivery: dead/);
    const replayed = await runCli(['test', testFile], { env: { ERP_URL: 'http://127.0.0.1:9' } });
    expect(replayed.stdout).toContain('1 passed, 0 failed');

    const dropped = await runCli(['outbox', 'drop', dead.id.slice(0, 6), '--reason', 'entered by hand (ticket 4711)', '--admin', admin]);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toContain(`${dead.id}: dropped ("entered by hand (ticket 4711)")`);
    // The store itself, as before: the same answers without the admin listener.
    const direct = await runCli(['outbox', 'list', '--state-dir', stateDir, '--status', 'delivered,dropped', '--json']);
    expect((JSON.parse(direct.stdout) as Listed[]).map((e) => [e.orderingKey, e.status])).toEqual([['SO-1', 'delivered'], ['SO-BAD', 'dropped']]);
    // What happened lately first: SO-BAD was dropped after SO-1 was delivered.
    const latest = await runCli(['outbox', 'list', '--admin', admin, '--status', 'delivered,dropped', '--order', 'settled', '--json']);
    expect(latest.code, latest.stderr).toBe(0);
    expect((JSON.parse(latest.stdout) as Listed[]).map((e) => [e.orderingKey, e.status])).toEqual([['SO-BAD', 'dropped'], ['SO-1', 'delivered']]);
    expect((await runCli(['outbox', 'list', '--admin', admin, '--order', 'newest'])).stderr).toContain('--order takes accepted or settled; got newest');
  }, 90_000);

  it('with --workers, the primary answers /outbox from the store the workers share', async () => {
    const erp = await startErp();
    const dir = tempDir();
    const serving = await startServe(['--workers', '2', '--admin-port', '0', '--state-dir', path.join(dir, 'state'), writeFile(dir, 'acme.yaml', MAPPING)], { ERP_URL: erp.url });
    running.push(serving);
    const placed = await fetch(`${serving.urls[0]}/WorkOrders/ForPutWall`, {
      method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ workOrderNumber: 'SO-7', itemNumber: 'A-1', completedAmount: 1, confirmedLocationName: 'B1', userEmail: 'u@example.com' }),
    });
    expect(placed.status).toBe(200);
    const listed = await runCli(['outbox', 'list', '--admin', serving.adminUrl as string, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Listed[]).map((e) => e.orderingKey)).toEqual(['SO-7']);
  }, 60_000);
});
