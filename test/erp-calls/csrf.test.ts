/**
 * SAP Gateway's CSRF protocol and session cookies (issue 17), against a fake Gateway on 127.0.0.1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorsOf } from '../support/mapping-issues';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { SERVICE_PATH, startFakeGateway, type FakeGateway } from './sap-gateway';

const SESSION = 'cookies: session\ncsrf: {}';

const OPERATIONS = `  GetExternalIndexableValueLabel:
    calls:
      - name: label
        method: GET
        path: /LabelSet
    output: '{ "label": calls.label.body.d.results[0].Label }'
  ReportWorkOrderStatus:
    calls:
      - name: status
        method: POST
        path: /StatusSet
        body: '{ "Order": input.number, "Status": $string(input.status) }'
`;

let gateway: FakeGateway;
let engine: RunningEngine | undefined;
beforeEach(async () => {
  gateway = await startFakeGateway();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await gateway.close();
});

const start = async (system = SESSION) => (engine = await startEngine(head(gateway.serviceUrl, system) + OPERATIONS));
const read = () => engine!.call('GET', '/WorkOrders/WorkOrderExternalIndexableValueLabel');
const write = (number = 'SO-1') => engine!.call('POST', '/WorkOrders/Status', { number, status: 3 });
const seen = () => gateway.requests.map((r) => `${r.method} ${r.path.slice(SERVICE_PATH.length)} csrf=${r.csrf ?? '-'} cookie=${r.cookie ? 'yes' : 'no'} → ${r.status}`);

describe('SAP Gateway CSRF tokens', () => {
  it('a read fetches the token with the session cookie; every write sends both', async () => {
    await start();
    expect((await read()).isResultSuccess).toBe(true);
    expect((await write('SO-1')).isResultSuccess).toBe(true);
    expect((await write('SO-2')).isResultSuccess).toBe(true);
    expect(seen()).toEqual([
      'GET /LabelSet csrf=Fetch cookie=no → 200',
      expect.stringMatching(/^POST \/StatusSet csrf=[0-9a-f-]{36} cookie=yes → 201$/),
      expect.stringMatching(/^POST \/StatusSet csrf=[0-9a-f-]{36} cookie=yes → 201$/),
    ]);
    const [, first, second] = gateway.requests;
    expect(first.csrf).toBe(second.csrf);
    expect(first.cookie).toMatch(/SAP_SESSIONID_ZWM_100=[^;]+; sap-usercontext=sap-client=100/);
  });

  it('a write before any read fetches a token at fetchPath first; concurrent writes share that one fetch', async () => {
    await start();
    const answers = await Promise.all([write('SO-1'), write('SO-2'), write('SO-3')]);
    expect(answers.map((a) => a.isResultSuccess)).toEqual([true, true, true]);
    expect(seen().filter((line) => line.startsWith('GET'))).toEqual(['GET / csrf=Fetch cookie=no → 200']);
    expect(gateway.requests.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([201, 201, 201]);
  });

  it('an expired session: 403 with X-CSRF-Token: Required fetches a new token once and sends the write again', async () => {
    await start();
    expect((await write('SO-1')).isResultSuccess).toBe(true);
    gateway.expireSessions();
    gateway.requests.length = 0;
    expect((await write('SO-2')).isResultSuccess).toBe(true);
    expect(seen()).toEqual([
      expect.stringMatching(/^POST \/StatusSet csrf=\S+ cookie=yes → 403$/),
      'GET / csrf=Fetch cookie=yes → 200',
      expect.stringMatching(/^POST \/StatusSet csrf=\S+ cookie=yes → 201$/),
    ]);
    expect(gateway.requests[2].cookie).not.toBe(gateway.requests[0].cookie); // the new session's cookie
  });

  it('a refusal that persists is answered as the ERP refused it, after one renewal only', async () => {
    await start();
    gateway.refuseWrites = true;
    const answer = await write();
    expect(answer.isResultSuccess).toBe(false);
    expect(JSON.stringify(answer.validationStatus)).toContain('the external system answered 403');
    expect(gateway.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['GET 200', 'POST 403', 'GET 200', 'POST 403']);
  });

  it('an ERP that hands out no token (another header): the write is not sent, and the answer says why', async () => {
    await start('cookies: session\ncsrf: { header: X-Other-Token }');
    const answer = await write();
    expect(answer.isResultSuccess).toBe(false);
    expect(JSON.stringify(answer.validationStatus)).toContain('without a X-Other-Token token');
    expect(gateway.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['GET 200']);
  });

  it('without csrf, writes go without a token and the Gateway refuses them', async () => {
    await start('cookies: session');
    expect((await write()).isResultSuccess).toBe(false);
    expect(seen()).toEqual(['POST /StatusSet csrf=- cookie=no → 403']);
  });
});

describe('session cookies', () => {
  it('cookies: session sends back what the ERP set; the default keeps none', async () => {
    await start('cookies: session');
    await read();
    await read();
    expect(gateway.requests.map((r) => r.cookie !== undefined)).toEqual([false, true]);
    await engine!.close();
    gateway.requests.length = 0;
    await start('cookies: none');
    await read();
    await read();
    expect(gateway.requests.map((r) => r.cookie !== undefined)).toEqual([false, false]);
  });

  it('csrf without cookies: session is a load error at csrf', () => {
    expect(errorsOf(`${head('http://erp.test', 'csrf: {}')}${OPERATIONS}`)).toEqual([expect.objectContaining({ code: 'SETTINGS_DISAGREE', line: 6, col: 3 })]);
  });
});
