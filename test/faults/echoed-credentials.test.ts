import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/core/engine';
import { createJournal } from '../../engine/journal/journal';
import { openSqliteJournal } from '../../engine/journal/sqlite-journal';
import { createLogger } from '../../engine/log';
import { createSecretRegistry } from '../../engine/mapping/secret-registry';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import { mappingFromText } from '../support/engine';

/**
 * An ERP that echoes its request (headers and URL) in an error answer: every credential the engine sent
 * comes back in the body. None of their forms (as configured, URL-encoded, Base64 in a Basic header, the
 * OAuth2 token the engine fetched) may reach what the engine stores or shows: the request journal (in
 * memory and journal.sqlite), the outbox's last answer (outbox.sqlite, what `outbox show` prints) and
 * the log.
 */

const TOKEN = `tok-${'x7Kp'.repeat(8)}`;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Answers the token endpoint with TOKEN; a lookup with a redirect whose target carries the request's
 * Authorization header (which the log quotes); an event 400 with the request echoed in the body.
 */
async function echoingErp(): Promise<string> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/oauth/token') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 }));
        return;
      }
      const echo = JSON.stringify({ error: 'rejected', echo: { url: request.url, headers: request.headers } });
      if (request.method === 'GET') {
        response.writeHead(302, { 'content-type': 'application/json', location: `/login?auth=${encodeURIComponent(request.headers.authorization ?? '')}` }).end(echo);
        return;
      }
      response.writeHead(400, { 'content-type': 'application/json' }).end(echo);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const OPERATIONS = `operations:
  GetItem:
    calls:
      - name: item
        method: GET
        path: /items/{input.number}
    output: '{ "number": calls.item.body.no }'
  ConfirmPutWallPlacement:
    delivery: outbox
    calls:
      - name: placement
        method: POST
        path: /placements
        body: '{ "docNo": input.workOrderNumber }'
`;

const CASES: { name: string; auth: (url: string) => string; env: Record<string, string>; forms: readonly string[] }[] = [
  {
    name: 'an API key in the query (as configured and URL-encoded)',
    auth: () => 'auth: { type: apiKey, in: query, name: api_key, value: "${ERP_API_KEY}" }',
    env: { ERP_API_KEY: 'ak/Live+4711=key' },
    forms: ['ak/Live+4711=key', encodeURIComponent('ak/Live+4711=key')],
  },
  {
    name: 'an OAuth2 bearer token the engine fetched, and the client secret',
    auth: (url) => `auth: { type: oauth2ClientCredentials, tokenUrl: "${url}/oauth/token", clientId: wms, clientSecret: "\${ERP_CLIENT_SECRET}" }`,
    env: { ERP_CLIENT_SECRET: 'cs-9f8e7d6c5b4a' },
    forms: [TOKEN, 'cs-9f8e7d6c5b4a', Buffer.from('wms:cs-9f8e7d6c5b4a').toString('base64')],
  },
  {
    name: 'a Basic Authorization value',
    auth: () => 'auth: { type: basic, username: wms, password: "${ERP_PASSWORD}" }',
    env: { ERP_PASSWORD: 'pw-Qz81-secret' },
    forms: ['pw-Qz81-secret', Buffer.from('wms:pw-Qz81-secret').toString('base64')],
  },
];

const PLACEMENT = { workOrderNumber: 'SO-1', itemNumber: 'A-100', completedAmount: 1, confirmedLocationName: 'PW-1', userEmail: 'op@example.com' };

describe('credentials an ERP echoes are masked in everything the engine keeps', () => {
  for (const testCase of CASES) {
    it(testCase.name, async () => {
      const url = await echoingErp();
      const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-echo-'));
      cleanups.push(() => fs.rmSync(stateDir, { recursive: true, force: true }));
      let logged = '';
      const secrets = createSecretRegistry();
      const log = createLogger({ level: 'debug', secrets, destination: new Writable({ write(chunk: Buffer, _encoding, done) { logged += chunk.toString(); done(); } }) });
      const mapping = mappingFromText(`version: 1\nname: echo\nsystem:\n  baseUrl: ${url}\n  timeoutMs: 2000\n  ${testCase.auth(url)}\n${OPERATIONS}`, testCase.env);
      const store = openSqliteStore(stateDir);
      const journal = createJournal({ size: 10, store: openSqliteJournal(stateDir), log });
      const engine = createEngine({ mappings: [mapping], outbox: store, journal, log, secrets });
      cleanups.push(() => engine.close());

      const lookup = await engine.handle({ method: 'GET', path: '/Items/A-1' });
      expect(lookup.envelope).toMatchObject({ isResultSuccess: false });
      const event = await engine.handle({ method: 'POST', path: '/WorkOrders/ForPutWall', body: PLACEMENT });
      expect(event.envelope).toMatchObject({ isResultSuccess: true });
      await engine.deliverer?.runOnce();
      const [dead] = await store.list({ status: ['dead'] });
      expect(logged).toContain('/login?auth=');
      // The echo did reach the engine: it is there, masked.
      expect(JSON.stringify(dead.last)).toContain('echo');

      const shown = [
        JSON.stringify(await engine.describeRequest(lookup.entry?.().id as string)),
        JSON.stringify(await engine.describeRequest(event.entry?.().id as string)),
        JSON.stringify(dead),
      ];
      await journal.flush();
      await engine.close();
      await store.close();
      const stored = fs.readdirSync(stateDir).map((file) => fs.readFileSync(path.join(stateDir, file)).toString('latin1'));
      expect(stored.join('')).toContain('echo');
      for (const form of testCase.forms) {
        for (const [index, text] of shown.entries()) expect(text, `shown ${index}`).not.toContain(form);
        for (const [index, text] of stored.entries()) expect(text, `stored file ${index}`).not.toContain(form);
        expect(logged, 'the log').not.toContain(form);
      }
    });
  }
});
