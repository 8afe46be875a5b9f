import http from 'node:http';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingErp, tempDir, writeFile } from '../cli/cli-process';
import { sessionToken, startStudio, type Studio } from './studio-process';

/**
 * What keeps the studio safe in a browser with other sites open: a change needs the page's token and
 * its origin, the local studio answers only a loopback Host, every answer carries the strict policy,
 * and the ERP's credentials never reach the page.
 */
const MAPPING = `version: 1
name: guarded
system:
  baseUrl: \${ERP_URL}
  auth: { type: bearer, token: "\${ERP_TOKEN}" }
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
    output: '{ "number": input.number, "name": "x", "unitOfMeasure": 1 }'
  GetExternalIndexableValueLabel:
    output: '{ "label": 5 }'
`;
const SECRET = 'erp-token-that-must-stay-on-the-server';

let studio: Studio;
let erp: Awaited<ReturnType<typeof startRecordingErp>>;
let token: string;

beforeAll(async () => {
  erp = await startRecordingErp({ no: 'A-1' });
  const dir = tempDir();
  writeFile(dir, 'guarded.yaml', MAPPING);
  studio = await startStudio(['guarded.yaml'], dir, { ERP_URL: erp.url, ERP_TOKEN: SECRET });
  token = await sessionToken(studio);
}, 60_000);

afterAll(async () => {
  await studio?.stop();
  await erp?.close();
});

function check(headers: Record<string, string>): Promise<Response> {
  return fetch(`${studio.origin}/studio/api/check`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ file: 'guarded.yaml', text: MAPPING }) });
}

/** A request with a Host of our choosing (fetch sets Host itself). */
function withHost(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${studio.origin}/studio/api/mappings`);
    http.get({ hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('the studio\'s guards', () => {
  it('refuses a change without the session token, or from another origin', async () => {
    const noToken = await check({ origin: studio.origin });
    expect(noToken.status).toBe(403);
    expect(((await noToken.json()) as { error: string }).error).toContain('x-studio-token');
    const wrongToken = await check({ origin: studio.origin, 'x-studio-token': 'guessed' });
    expect(wrongToken.status).toBe(403);
    const otherSite = await check({ origin: 'http://evil.example', 'x-studio-token': token });
    expect(otherSite.status).toBe(403);
    expect(((await otherSite.json()) as { error: string }).error).toContain(`must come from the studio's page (Origin ${studio.origin}), not http://evil.example`);
    const page = await check({ origin: studio.origin, 'x-studio-token': token });
    expect(page.status).toBe(200);
  });

  it('answers only requests addressed to the loopback interface', async () => {
    expect(await withHost('attacker.example:80')).toBe(421);
    expect(await withHost(new URL(studio.origin).host)).toBe(200);
  });

  it('sends a policy that runs only the page\'s own script', async () => {
    for (const path of ['/studio/', '/studio/api/mappings', '/studio/assets/app.js']) {
      const answer = await fetch(`${studio.origin}${path}`);
      expect(answer.status).toBe(200);
      const policy = answer.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'self'; script-src 'self';");
      expect(policy).not.toMatch(/script-src[^;]*unsafe/);
    }
  });

  it('shows the auth kind and masks the ERP\'s credential in a trace', async () => {
    const mappings = await (await fetch(`${studio.origin}/studio/api/mappings`)).text();
    expect(mappings).toContain('"auth":"bearer"');
    expect(mappings).not.toContain(SECRET);
    const tried = await fetch(`${studio.origin}/studio/api/try`, { method: 'POST', headers: { 'content-type': 'application/json', origin: studio.origin, 'x-studio-token': token }, body: JSON.stringify({ file: 'guarded.yaml', operation: 'GetItem', input: { number: 'A-1' }, source: 'erp' }) });
    const text = await tried.text();
    expect(tried.status).toBe(200);
    expect(erp.received[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(text).toContain('"step":"request"');
    expect(text).not.toContain(SECRET);
    const journal = await (await fetch(`${studio.origin}/studio/api/requests`)).json() as { requests: { id: string }[] };
    expect(await (await fetch(`${studio.origin}/studio/api/requests/${journal.requests[0].id}`)).text()).not.toContain(SECRET);
  });

  it('shows a contract check\'s problems in the page, each by its field', async () => {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${studio.url}#/try`);
      await page.getByLabel('Operation').selectOption('GetExternalIndexableValueLabel');
      await page.getByRole('button', { name: 'Run' }).click();
      const problems = page.getByRole('list', { name: 'Contract problems' });
      await expect.poll(() => problems.textContent(), { timeout: 15_000 }).toMatch(/label.*must be string/);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
