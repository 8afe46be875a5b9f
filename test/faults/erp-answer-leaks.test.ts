/**
 * Issue 18, item 7: an empty 200 from the ERP became Succeed with an empty work order list; an API key
 * sent in the query reached validationStatus and the log through a redirect's Location; absolute mapping
 * file paths and the ERP's internal URLs reached the platform. Now an empty answer to a JSON call is
 * unreadable (except 204, and on event routes); the platform gets the call's name and the status (or
 * that the OAuth2 token endpoint failed, without its URL), the log the detail with the mapping's
 * credentials masked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../engine/mapping/load';
import { head, loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';
import { deadErpUrl, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';

const SECRET = 'sk-live-4711-do-not-leak';
let erp: MisbehavingErp;
let engine: RunningEngine | undefined;
let logged: string;
const log = () =>
  pino({ level: 'debug' }, new Writable({ write(chunk: Buffer, _encoding, done) { logged += chunk.toString(); done(); } }));

beforeEach(async () => {
  logged = '';
  erp = await startMisbehavingErp({ basePath: '/api/v1' });
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await erp.close();
});

describe('what the platform and the log get from ERP faults (issue 18, item 7)', () => {
  it('an empty 200 to GET /WorkOrders is a failure, not Succeed with no work orders', async () => {
    erp.onAny(() => ({ status: 200, raw: '', headers: { 'content-type': 'application/json' } }));
    engine = await startEngine(loadExampleMapping(erp.url));
    const envelope = await engine.call('GET', '/WorkOrders');
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 4, data: null }); // AdapterApiCallFailed
    expect(envelope.validationStatus).toEqual([{ path: 'calls.orders', message: 'the external system answered 200 with an empty body; a JSON body was expected' }]);
  });

  it('an empty answer to an event is fine (the event needs no answer)', async () => {
    erp.onAny(() => ({ status: 200, raw: '', headers: { 'content-type': 'application/json' } }));
    engine = await startEngine(loadExampleMapping(erp.url));
    const envelope = await engine.call('POST', '/WorkOrders/CancelWorkOrderRequest', {
      workOrderNumber: 'SO-1003', workOrderTypeName: 'STANDARD', requestExternalIdentifier: '50003-10', userEmail: 'op@example.com',
      request: { requestId: 41, itemNumber: 'A-300', requestedAmountInBaseUnitOfMeasure: 5, completedAmountInBaseUnitOfMeasure: 0, isCancelled: true, type: 1 },
    });
    expect(envelope).toMatchObject({ isResultSuccess: true });
  });

  it('a redirect carrying the query API key: the platform gets call and status, the log the target masked', async () => {
    erp.onAny(() => ({ status: 302, headers: { location: `https://erp-internal.corp.local/login?next=%2Forders&apiKey=${SECRET}` } }));
    const mapping = `${head(erp.url, `auth: { type: apiKey, in: query, name: apiKey, value: "\${ERP_KEY}" }`)}  GetExternalIndexableValueLabel:
    calls:
      - name: label
        method: GET
        path: /label
    output: '{ "label": calls.label.body.text }'
`;
    engine = await startEngine(mapping, { log: log(), env: { ERP_KEY: SECRET } });
    const reply = await engine.get('/WorkOrders/WorkOrderExternalIndexableValueLabel');
    const answer = JSON.stringify(reply.body);
    expect(reply.body.validationStatus).toEqual([{ path: 'calls.label', message: 'the external system answered 302 (a redirect; redirects are not followed, check system.baseUrl)' }]);
    expect(answer).not.toContain(SECRET);
    expect(answer).not.toContain('erp-internal');
    expect(answer).not.toContain('/api/v1');
    expect(logged).toContain('erp-internal.corp.local/login?next=%2Forders&apiKey=***');
    expect(logged).not.toContain(SECRET);
  });

  it('no ERP URL in the answer when the ERP cannot be reached', async () => {
    const url = await deadErpUrl();
    engine = await startEngine(loadExampleMapping(url), { log: log() });
    const envelope = await engine.call('GET', '/Items/A-100');
    expect(envelope).toMatchObject({ isResultSuccess: false });
    expect(JSON.stringify(envelope)).not.toContain('127.0.0.1');
    expect(JSON.stringify(envelope.validationStatus)).toContain('connection refused');
    expect(logged).toContain('127.0.0.1');
  });

  it('no token endpoint URL in the answer when the OAuth2 token cannot be had', async () => {
    const tokenUrl = `${await deadErpUrl()}/oauth/token`;
    const auth = `auth: { type: oauth2ClientCredentials, tokenUrl: "${tokenUrl}", clientId: engine, clientSecret: "\${ERP_KEY}" }`;
    engine = await startEngine(`${head(erp.url, auth)}  GetExternalIndexableValueLabel:\n    calls: [{ name: label, method: GET, path: /label }]\n    output: '{"label": calls.label.body.text}'\n`, { log: log(), env: { ERP_KEY: SECRET } });
    const envelope = await engine.call('GET', '/WorkOrders/WorkOrderExternalIndexableValueLabel');
    expect(envelope).toMatchObject({ isResultSuccess: false, data: null });
    expect(JSON.stringify(envelope.validationStatus)).toContain('the OAuth2 token endpoint could not be reached (REFUSED)');
    expect(JSON.stringify(envelope)).not.toContain('127.0.0.1');
    expect(JSON.stringify(envelope)).not.toContain('/oauth/token');
    expect(logged).toContain(tokenUrl);
    expect(logged).not.toContain(SECRET);
  });

  it('no mapping file path in the answer when an expression fails', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaks-'));
    const file = path.join(dir, 'customer-erp.yaml');
    fs.writeFileSync(file, `${head(erp.url)}  GetWorkOrders:\n    output: $error('boom')\n`);
    engine = await startEngine(loadMapping(file).mapping, { log: log() });
    const reply = await engine.get('/WorkOrders');
    expect(reply.body.isResultSuccess).toBe(false);
    expect(reply.body.validationStatus).toEqual([{ path: 'output', message: expect.stringContaining('(customer-erp.yaml:') }]);
    expect(JSON.stringify(reply.body)).not.toContain(path.basename(dir));
    // The log names the file as the loader shows it: relative to the working directory, or absolute.
    expect(logged).toContain(`${path.basename(dir)}/customer-erp.yaml:`);
    fs.rmSync(dir, { recursive: true });
  });
});
