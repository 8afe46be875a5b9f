import { Validator } from '@seriousme/openapi-schema-validator';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, ADMIN_TOKEN, startServe, stoppedAfterEach, tempDir, writeFile } from '../cli/cli-process';
import { OUTBOX_PLACEMENT } from '../support/outbox-operation';

/**
 * `serve --admin-port` serves the read-only studio under /studio: the page opens without a token, its
 * API needs the admin token; retrying a dead letter needs --studio-write, and editing never happens there.
 */
const { running, cleanups } = stoppedAfterEach(afterEach);

/** An ERP that refuses every placement (422): each event becomes a dead letter at once. */
async function refusingErp(): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"unknown bin"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function mapping(erp: string): string {
  return `version: 1
name: shop
system:
  baseUrl: ${erp}
operations:
${OUTBOX_PLACEMENT}`;
}

const PLACEMENT = { workOrderNumber: 'SO-1', itemNumber: 'A-1', completedAmount: 1, confirmedLocationName: 'PW-1', userEmail: 'ann@example.com' };

interface Outbox { events: { id: string; status: string; last?: { status?: number } }[] }

async function deadLetter(studioWrite: boolean): Promise<{ admin: string; id: string; token: string }> {
  const file = writeFile(tempDir(), 'shop.yaml', mapping(await refusingErp()));
  const serving = await startServe(['--admin-port', '0', ...(studioWrite ? ['--studio-write'] : []), file]);
  running.push(serving);
  const admin = serving.adminUrl as string;
  const page = await fetch(`${admin}/studio/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  const token = /name="studio-token" content="([^"]+)"/.exec(await page.text())?.[1] as string;
  await fetch(`${serving.urls[0]}/WorkOrders/ForPutWall`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(PLACEMENT) });
  let outbox: Outbox = { events: [] };
  const poll = async () => { outbox = await (await fetch(`${admin}/studio/api/outbox`, { headers: ADMIN_AUTH })).json() as Outbox; };
  for (let tries = 0; tries < 100 && outbox.events[0]?.status !== 'dead'; tries += 1) {
    await poll();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(outbox.events[0]).toMatchObject({ status: 'dead', last: { status: 422 } });
  return { admin, id: outbox.events[0].id, token };
}

function retry(admin: string, id: string, token: string): Promise<Response> {
  return fetch(`${admin}/studio/api/outbox/${id}/retry`, { method: 'POST', headers: { ...ADMIN_AUTH, origin: admin, 'x-studio-token': token, 'content-type': 'application/json' }, body: '{}' });
}

describe('serve --admin-port: the read-only studio', () => {
  it('shows mappings and the outbox to an admin token only, and refuses retrying and editing', { timeout: 60_000 }, async () => {
    const { admin, id, token } = await deadLetter(false);
    expect((await fetch(`${admin}/studio/api/mappings`)).status).toBe(401);
    const mappings = await (await fetch(`${admin}/studio/api/mappings`, { headers: ADMIN_AUTH })).json() as { mappings: { name: string; loads: boolean }[] };
    expect(mappings.mappings).toMatchObject([{ name: 'shop', loads: true }]);
    const refused = await retry(admin, id, token);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('needs serve --studio-write');
    const source = await fetch(`${admin}/studio/api/source?file=shop.yaml`, { headers: ADMIN_AUTH });
    expect(source.status).toBe(403);
  });

  it('lists the studio\'s API in /openapi.json, a valid OpenAPI document', { timeout: 60_000 }, async () => {
    const file = writeFile(tempDir(), 'shop.yaml', mapping('http://127.0.0.1:9'));
    const serving = await startServe(['--admin-port', '0', file]);
    running.push(serving);
    const document = await (await fetch(`${serving.adminUrl as string}/openapi.json`, { headers: ADMIN_AUTH })).json() as { paths: Record<string, Record<string, { 'x-studio-access'?: string }>> };
    expect(document.paths['/studio/api/mappings'].get['x-studio-access']).toBe('read');
    expect(document.paths['/studio/api/outbox/{id}/retry'].post['x-studio-access']).toBe('settle');
    expect(document.paths['/studio/api/source'].put['x-studio-access']).toBe('edit');
    expect(document.paths['/WorkOrders/Code']).toBeDefined();
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('retries a dead letter with --studio-write', { timeout: 60_000 }, async () => {
    const { admin, id, token } = await deadLetter(true);
    const retried = await retry(admin, id, token);
    expect(retried.status).toBe(200);
    expect(await retried.text()).toContain('pending again');
  });

  it('asks for the admin token in a form that says where it comes from, with no page error and no favicon refused', { timeout: 60_000 }, async () => {
    const file = writeFile(tempDir(), 'shop.yaml', mapping('http://127.0.0.1:9'));
    const serving = await startServe(['--admin-port', '0', file]);
    running.push(serving);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const errors: string[] = [];
      const refused: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('response', (response) => { if (response.status() >= 400) refused.push(new URL(response.url()).pathname); });
      await page.goto(`${serving.adminUrl as string}/studio/`);
      const form = page.getByRole('region', { name: 'Admin token needed' });
      await expect.poll(() => form.textContent(), { timeout: 15_000 }).toContain('ADMIN_TOKENS');
      await page.getByRole('textbox', { name: 'Admin token' }).fill(ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Use' }).click();
      await expect.poll(() => page.locator('main').textContent(), { timeout: 15_000 }).toContain('GetWorkOrderByCode');
      expect(await form.count()).toBe(0);
      expect(errors).toEqual([]);
      // Before the token only the API refused (401); the page, its assets and no favicon request.
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.filter((path) => !path.startsWith('/studio/api/'))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
