/**
 * examples/netsuite/netsuite.yaml on the NetSuite stand-in (test/support/netsuite-erp.ts), which checks
 * every OAuth 1.0a signature with a verifier of its own: the routes answer, SuiteQL's limit and offset
 * are signed on every page, a 429 without Retry-After is retried with a fresh nonce, a burst keeps to
 * the account's limit, a cached answer is found again although every request is signed anew, and the
 * trace shows the Authorization header's parameters without the signature or a secret.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRoute, resultNumber } from '../../engine/contract/routes';
import { createHttpClient, type OutboundRequest } from '../../engine/http/client';
import { createMasker, declaredSecretNames } from '../../engine/mapping/mask';
import { PROJECT_ROOT } from '../../engine/paths';
import { createAnsweringClient } from '../../engine/testing/answers';
import { runCase } from '../../engine/testing/run-case';
import { closeAfterEach, startEngine, type RunningEngine } from '../support/engine';
import { loadNetSuiteMapping, NETSUITE_MAPPING, netsuiteEnv, netsuiteMappingWith } from '../support/netsuite-engine';
import { NS_ACCOUNT, NS_CREDENTIALS, startNetSuiteErp, type NetSuiteErp } from '../support/netsuite-erp';

let erp: NetSuiteErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

const succeed = (operationId: string) => ({ isResultSuccess: true, result: resultNumber(findRoute(operationId)!, 'Succeed') });

describe('examples/netsuite/netsuite.yaml', () => {
  it('passes validate --strict: it loads and its recorded tests pass, every expression exercised', () => {
    const binary = path.join(PROJECT_ROOT, 'dist', 'engine', 'cli', 'main.js');
    const env = Object.entries(netsuiteEnv('https://1234567-sb1.suitetalk.api.netsuite.com')).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    const output = execFileSync(process.execPath, [binary, 'validate', '--strict', ...env, NETSUITE_MAPPING], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', LOG_LEVEL: 'silent' } });
    expect(output).toContain('ok  5 of 19 routes mapped');
  });

  it('serves its routes on the stand-in with OAuth 1.0a: every signature verified, no nonce twice, SuiteQL pages signed with their limit and offset', async () => {
    erp = await startNetSuiteErp({ extraOrders: 120 });
    engine = await startEngine(loadNetSuiteMapping(erp.url));
    expect(await engine.call('GET', '/WorkOrders/Code?Code=SO-1001')).toMatchObject({ ...succeed('GetWorkOrderByCode'), data: { number: 'SO-1001', requests: [{ itemNumber: 'A-100', requestedAmount: 12 }, { itemNumber: 'A-200' }] } });
    const all = await engine.call('GET', '/WorkOrders');
    expect(all).toMatchObject({ isResultSuccess: true });
    expect((all as { data: unknown[] }).data).toHaveLength(123);
    // The engine wrote the page parameters; the ERP verified a signature over them on each page.
    expect(erp.suiteqlPages.filter((query) => query.endsWith('limit=100'))).toEqual(['?offset=0&limit=100', '?offset=100&limit=100']);
    const wall = await engine.call('GET', '/WorkOrders/ForPutWall/PW-01');
    expect(wall).toMatchObject({ isResultSuccess: true, data: [{ number: 'SO-1001' }, { number: 'SO-1002', requests: [{ itemNumber: 'B-300', unitOfMeasure: 1 }] }] });
    expect(await engine.call('GET', '/Items/A-200')).toMatchObject({ ...succeed('GetItem'), data: { number: 'A-200', description: "O'Brien's pattern" } });
    expect(await engine.call('POST', '/WorkOrders/Status', { number: 'SO-1001', status: 3 })).toMatchObject(succeed('ReportWorkOrderStatus'));
    expect(erp.statuses).toEqual([{ tranId: 'SO-1001', status: 'Completed' }]);
    expect(erp.authFailures).toEqual([]);
    expect(new Set(erp.nonces).size).toBe(erp.nonces.length);
    expect(erp.served).toContain('restlet');
  });

  it("answers a RESTlet's refusal inside a 200 as a failure in NetSuite's words", async () => {
    erp = await startNetSuiteErp();
    engine = await startEngine(loadNetSuiteMapping(erp.url));
    const reply = await engine.call('POST', '/WorkOrders/Status', { number: 'SO-404', status: 3 });
    expect(reply).toMatchObject({ isResultSuccess: false, externalMessage: 'That record does not exist. tranId: SO-404' });
  });

  it('retries a 429 without Retry-After after a backoff, signed anew: the ERP sees a fresh nonce, not a replay', async () => {
    erp = await startNetSuiteErp();
    engine = await startEngine(netsuiteMappingWith(erp.url, (text) => text.replace('retry: { attempts: 4, baseDelayMs: 200, maxDelayMs: 2000 }', 'retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 20 }')));
    erp.rateLimitNext = 2;
    expect(await engine.call('GET', '/Items/A-100')).toMatchObject({ ...succeed('GetItem'), data: { number: 'A-100' } });
    expect(erp.rateLimited).toBe(2);
    expect(erp.nonces).toHaveLength(3);
    expect(new Set(erp.nonces).size).toBe(3);
    expect(erp.authFailures).toEqual([]);
  });

  it('a burst of 20 lookups against a limit of 2 in flight: 20 successes, 0 authentication failures', async () => {
    erp = await startNetSuiteErp({ extraItems: 20, concurrencyLimit: 2, delayMs: 10 });
    engine = await startEngine(netsuiteMappingWith(erp.url, (text) => text.replace('maxConcurrency: 5\n', 'maxConcurrency: 2\n')));
    const replies = await Promise.all(Array.from({ length: 20 }, (_, index) => engine!.call('GET', `/Items/X-${index}`)));
    expect(replies.filter((reply) => (reply as { isResultSuccess?: boolean }).isResultSuccess === true)).toHaveLength(20);
    expect(erp.authFailures).toEqual([]);
    expect(erp.rateLimited).toBe(0);
    expect(erp.peakInFlight).toBeLessThanOrEqual(2);
  });

  it('a burst over the account limit (another integration holds slots): every 429 retried signed anew, no authentication failure', async () => {
    erp = await startNetSuiteErp({ extraItems: 20, concurrencyLimit: 2, delayMs: 10 });
    engine = await startEngine(netsuiteMappingWith(erp.url, (text) => text.replace('retry: { attempts: 4, baseDelayMs: 200, maxDelayMs: 2000 }', 'retry: { attempts: 10, baseDelayMs: 20, maxDelayMs: 200 }')));
    const replies = await Promise.all(Array.from({ length: 20 }, (_, index) => engine!.call('GET', `/Items/X-${index}`)));
    expect(erp.rateLimited).toBeGreaterThan(0);
    expect(erp.authFailures).toEqual([]);
    expect(new Set(erp.nonces).size).toBe(erp.nonces.length);
    expect(erp.nonces.length).toBe(20 + erp.rateLimited);
    for (const reply of replies) expect(reply).toMatchObject({ isResultSuccess: true });
  });

  it('reads an id-only list by fan-out within system.maxConcurrency: 1 + N requests, never more in flight than the account allows', async () => {
    erp = await startNetSuiteErp({ extraOrders: 30, concurrencyLimit: 2, delayMs: 5 });
    engine = await startEngine(netsuiteMappingWith(erp.url, (text) => text.replace('maxConcurrency: 5\n', 'maxConcurrency: 2\n')));
    const reply = await engine.call('GET', '/WorkOrders/ForPutWall/PW-02');
    expect(reply).toMatchObject({ isResultSuccess: true });
    expect((reply as { data: unknown[] }).data).toHaveLength(30);
    expect(erp.served.filter((route) => route === 'record-list')).toHaveLength(1);
    expect(erp.served.filter((route) => route === 'record')).toHaveLength(30);
    expect(erp.peakInFlight).toBeLessThanOrEqual(2);
    expect(erp.rateLimited).toBe(0);
    expect(erp.authFailures).toEqual([]);
  });

  it('finds a signed answer in the cache: the key leaves out what the signature adds', async () => {
    erp = await startNetSuiteErp();
    engine = await startEngine(loadNetSuiteMapping(erp.url));
    for (let round = 0; round < 3; round += 1) expect(await engine.call('GET', '/Items/A-100')).toMatchObject(succeed('GetItem'));
    expect(erp.served).toEqual(['suiteql']);
  });

  it('the stand-in refuses a replayed nonce, a timestamp more than 5 minutes off and a wrong signature', async () => {
    erp = await startNetSuiteErp();
    const mapping = loadNetSuiteMapping(erp.url);
    engine = await startEngine(mapping);
    erp.now = () => Math.floor(Date.now() / 1000) + 301;
    expect(await engine.call('GET', '/Items/A-100')).toMatchObject({ isResultSuccess: false });
    expect(erp.authFailures).toEqual(['timestamp more than 5 minutes off']);
    erp.now = () => Math.floor(Date.now() / 1000);
    // A request the engine signed, sent again as it was: a replay. Then one with its URL changed.
    await engine.close();
    const live = createHttpClient();
    const sent: OutboundRequest[] = [];
    engine = await startEngine(mapping, { http: { send: (request) => { sent.push(request); return live.send(request); }, close: () => live.close() } });
    expect(await engine.call('GET', '/Items/A-100')).toMatchObject(succeed('GetItem'));
    const signed = sent.at(-1)!;
    expect(signed.headers.authorization).toMatch(/^OAuth realm=/);
    const resend = (url: string, headers: Record<string, string>) => fetch(url, { method: 'POST', headers, body: JSON.stringify(signed.body) });
    expect((await resend(signed.url.href, { ...signed.headers })).status).toBe(401);
    const other = { ...signed.headers, authorization: signed.headers.authorization!.replace(/oauth_nonce="[^"]+"/, 'oauth_nonce="abcdef123456"') };
    expect((await resend(signed.url.href.replace('limit=1', 'limit=2'), other)).status).toBe(401);
    expect(erp.authFailures).toEqual(['timestamp more than 5 minutes off', 'nonce used before', 'signature does not match']);
  });

  it('the trace shows the OAuth parameters of each attempt without the signature; no secret shows', async () => {
    erp = await startNetSuiteErp();
    const mapping = loadNetSuiteMapping(erp.url);
    const client = createAnsweringClient({ live: createHttpClient() });
    const mask = createMasker(mapping.secretValues, declaredSecretNames(mapping.system));
    const run = await runCase(mapping, findRoute('GetItem')!, { number: 'A-100' }, client, mask);
    client.close();
    expect(run.resultName).toBe('Succeed');
    const notes = run.steps.filter((step) => step.step === 'note').map((step) => (step as { text: string }).text);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(new RegExp(`^calls\\.item: attempt 1 signed with Authorization: OAuth realm="${NS_ACCOUNT}", oauth_consumer_key="[^"]+", oauth_token="[^"]+", oauth_signature_method="HMAC-SHA256", oauth_timestamp="\\d+", oauth_nonce="[0-9a-f]{32}", oauth_version="1\\.0", oauth_signature not shown$`));
    const shown = JSON.stringify(run.steps);
    for (const secret of [NS_CREDENTIALS.consumerSecret, NS_CREDENTIALS.tokenSecret]) expect(shown).not.toContain(secret);
    expect(shown).not.toMatch(/oauth_signature="/);
  });

  it('an ERP that echoes the refused Authorization header: its signature shows nowhere, not in the trace, the journal or the failure', async () => {
    erp = await startNetSuiteErp();
    erp.echoAuthorization = true;
    erp.now = () => Math.floor(Date.now() / 1000) + 600;
    const mapping = loadNetSuiteMapping(erp.url);
    const client = createAnsweringClient({ live: createHttpClient() });
    const mask = createMasker(mapping.secretValues, declaredSecretNames(mapping.system));
    const run = await runCase(mapping, findRoute('GetItem')!, { number: 'A-100' }, client, mask);
    client.close();
    expect(run.envelope).toMatchObject({ isResultSuccess: false });
    // The journal keeps its entry as JSON text masked by the mapping's masker.
    const shown = JSON.stringify([run.steps, run.failure, run.envelope]) + mask.json(JSON.stringify(run.entry ?? null));
    expect(shown).toContain('oauth_signature=\\"***\\"');
    expect(shown).not.toMatch(/oauth_signature=\\"(?!\*\*\*)/);
    expect(run.failure?.message ?? '').not.toMatch(/oauth_signature="(?!\*\*\*)/);
  });
});
