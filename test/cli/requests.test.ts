import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, runCli, startRecordingErp, startServe, stoppedAfterEach, tempDir, writeFile } from './cli-process';
import { OUTBOX_PLACEMENT } from '../support/outbox-operation';

/**
 * Support staff's tools on the real binary against a real stand-in ERP: the journal of a running server
 * (`requests`, `requests show`), a request exported as a test case and replayed offline with the ERP
 * stopped, and `record`. No credential reaches the output or the files.
 */
const SECRET = 'tok-77aa88bb99cc';
const MAPPING = `version: 1
name: acme
system:
  baseUrl: \${ERP_URL}
  auth: { type: bearer, token: "\${ERP_TOKEN}" }
operations:
  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    outcomes:
      - when: response.body.state = 'BLOCKED'
        result: WorkOrderDoesNotExist
        message: "'Order ' & input.Code & ' is blocked'"
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`;
const ANSWER = { no: '4711', state: 'BLOCKED', note: `issued for ${SECRET}` };
const OFFLINE = { ERP_URL: 'http://127.0.0.1:9/api', ERP_TOKEN: 'not-the-real-one' };

const { running, cleanups } = stoppedAfterEach(afterEach);

async function servedWithErp(answer: unknown = ANSWER, extra: string[] = []) {
  const erp = await startRecordingErp(answer);
  cleanups.push(() => erp.close());
  const dir = tempDir();
  const mappingFile = writeFile(dir, 'acme.yaml', MAPPING);
  const serving = await startServe([...extra, '--admin-port', '0', mappingFile], { ERP_URL: erp.url, ERP_TOKEN: SECRET });
  running.push(serving);
  return { erp, dir, mappingFile, serving, admin: serving.adminUrl as string };
}

describe('adapter-engine requests', () => {
  it('finds a failed request by its work order, shows it as dry-run does, and exports it as a test that replays offline', async () => {
    const { dir, mappingFile, serving, admin, erp } = await servedWithErp();
    const envelope = await (await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=4711`)).json() as { isResultSuccess: boolean };
    expect(envelope.isResultSuccess).toBe(false);
    await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=1000`);

    const listed = await runCli(['requests', '--admin', admin, '--contains', '4711', '--outcome', 'failure', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const requests = JSON.parse(listed.stdout) as { id: string; path: string; result: string }[];
    expect(requests).toEqual([expect.objectContaining({ path: '/WorkOrders/Code?Code=4711', result: 'WorkOrderDoesNotExist' })]);
    const table = await runCli(['requests', '--admin', admin]);
    expect(table.stdout).toMatch(/WorkOrderDoesNotExist +\d+ +GET \/WorkOrders\/Code\?Code=4711/);

    const shown = await runCli(['requests', 'show', requests[0].id, '--admin', admin]);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toContain(`request ${requests[0].id}  GetWorkOrderByCode`);
    expect(shown.stdout).toContain('1. call order  (sent)');
    expect(shown.stdout).toMatch(/rule 1 +response\.body\.state = 'BLOCKED' +→ WorkOrderDoesNotExist +matched/);
    expect(shown.stdout).toContain('"externalMessage": "Order 4711 is blocked"');
    expect(shown.stdout).toContain('issued for ***');
    expect(shown.stdout).not.toContain(SECRET);

    const testFile = path.join(dir, 'acme.test.yaml');
    const exported = await runCli(['requests', 'export', requests[0].id, '--as-test', '--out', testFile, '--admin', admin]);
    expect(exported.code, exported.stderr).toBe(0);
    const written = fs.readFileSync(testFile, 'utf8');
    const schema = /^# yaml-language-server: \$schema=(\S+)\n/.exec(written)?.[1];
    expect(schema, 'outside a project, the published address of the test files\' schema').toBe('https://adapter-engine.dev/schemas/mapping-test.schema.json');
    expect(written).not.toContain(SECRET);
    expect(written).not.toMatch(/authorization/i);

    // The ERP and the server are gone: the case replays from its recorded answers.
    serving.child.kill('SIGTERM');
    await serving.exited;
    await erp.close();
    const replayed = await runCli(['test', testFile], { env: OFFLINE });
    expect(replayed.code, replayed.stdout).toBe(0);
    expect(replayed.stdout).toContain('1 passed, 0 failed');

    // A mapping that answers differently now fails the case.
    fs.writeFileSync(mappingFile, MAPPING.replace("' is blocked'", "' is on hold'"));
    const changed = await runCli(['test', testFile], { env: OFFLINE });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('externalMessage');
  }, 90_000); // one server and seven command runs, each a Node process

  it('shows an event stored in the outbox with where it stands now: delivered to the ERP', async () => {
    const erp = await startRecordingErp({ ok: true });
    cleanups.push(() => erp.close());
    const dir = tempDir();
    const mappingFile = writeFile(dir, 'acme.yaml', `${MAPPING}${OUTBOX_PLACEMENT}`);
    const serving = await startServe(['--admin-port', '0', '--state-dir', path.join(dir, 'state'), mappingFile], { ERP_URL: erp.url, ERP_TOKEN: SECRET });
    running.push(serving);
    const placement = { workOrderNumber: 'SO-4711', itemNumber: 'A-1', completedAmount: 1, confirmedLocationName: 'B1', userEmail: 'u@example.com' };
    const answered = await fetch(`${serving.urls[0]}/WorkOrders/ForPutWall`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(placement) });
    expect(await answered.json()).toMatchObject({ isResultSuccess: true });
    for (let wait = 0; wait < 100 && erp.received.length === 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(erp.received.map((request) => request.url)).toEqual(['/api/v1/placements']);

    const listed = JSON.parse((await runCli(['requests', '--admin', serving.adminUrl as string, '--contains', 'SO-4711', '--json'])).stdout) as { id: string }[];
    let shown = await runCli(['requests', 'show', listed[0].id, '--admin', serving.adminUrl as string]);
    // The delivery is settled in the store a moment after the ERP answered.
    for (let wait = 0; wait < 20 && !shown.stdout.includes('delivered to the ERP'); wait += 1) shown = await runCli(['requests', 'show', listed[0].id, '--admin', serving.adminUrl as string]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/outbox +stored as event ([0-9a-f-]{36}) \(ordering key SO-4711; adapter-engine outbox show \1\)/);
    expect(shown.stdout).toMatch(/now +event [0-9a-f-]{36} +delivered to the ERP at \d{4}-\d\d-\d\dT[\d:.]+Z \(1 attempt\)/);

    // Exported with its delivery (the ERP's recorded answer), the case replays offline and passes.
    const testFile = path.join(dir, 'acme.test.yaml');
    const exported = await runCli(['requests', 'export', listed[0].id, '--as-test', '--out', testFile, '--admin', serving.adminUrl as string]);
    expect(exported.code, exported.stderr).toBe(0);
    const written = fs.readFileSync(testFile, 'utf8');
    expect(written).toContain('placement:\n        body:\n          ok: true');
    expect(written).toContain('delivery: delivered');
    serving.child.kill('SIGTERM');
    await serving.exited;
    await erp.close();
    const replayed = await runCli(['test', testFile], { env: OFFLINE });
    expect(replayed.stdout).toContain('1 passed, 0 failed');
    expect(replayed.code).toBe(0);
  }, 60_000);

  it('refuses a filter it does not know, and an id the journal does not hold', async () => {
    const { admin } = await servedWithErp();
    const bad = await runCli(['requests', '--admin', admin, '--outcome', 'maybe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('outcome must be "success" or "failure"');
    const unknown = await runCli(['requests', 'show', 'nope-1', '--admin', admin]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no request nope-1 in the journal');
  }, 60_000);

  it('lists the requests of every worker with --workers', async () => {
    const { serving, admin } = await servedWithErp(ANSWER, ['--workers', '2']);
    for (let i = 0; i < 6; i += 1) await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=47${i}`, { headers: { connection: 'close' } });
    const listed = await (await fetch(`${admin}/requests?limit=100`, { headers: ADMIN_AUTH })).json() as { requests: { path: string }[] };
    expect(listed.requests.map((r) => r.path).sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `/WorkOrders/Code?Code=47${i}`));
  }, 60_000);
});

describe('adapter-engine record', () => {
  it('runs an operation live and appends a test case without secrets, which replays offline', async () => {
    const erp = await startRecordingErp(ANSWER);
    cleanups.push(() => erp.close());
    const dir = tempDir();
    const mappingFile = writeFile(dir, 'acme.yaml', MAPPING);
    const env = { ERP_URL: erp.url, ERP_TOKEN: SECRET };
    const first = await runCli(['record', mappingFile, 'GetWorkOrderByCode', '--input', '{"Code":"4711"}'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('result WorkOrderDoesNotExist');
    const second = await runCli(['record', mappingFile, 'GET /WorkOrders/Code?Code=4712', '--name', 'second order'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(erp.received.map((r) => [r.url, r.headers.authorization])).toEqual([['/api/v1/orders/4711', `Bearer ${SECRET}`], ['/api/v1/orders/4712', `Bearer ${SECRET}`]]);

    const testFile = path.join(dir, 'acme.test.yaml');
    const written = fs.readFileSync(testFile, 'utf8');
    expect(written).toContain('name: second order');
    expect(written).toContain('note: issued for ***');
    expect(written).not.toContain(SECRET);
    await erp.close();
    const replayed = await runCli(['test', testFile], { env: OFFLINE });
    expect(replayed.code, replayed.stdout).toBe(0);
    expect(replayed.stdout).toContain('2 passed, 0 failed');
  }, 60_000);
});

describe('adapter-engine requests: pushes', () => {
  const PUSH_KEY = 'push-key-5f4e3d2c1b';
  const env = { ERP_URL: 'http://127.0.0.1:9/erp', PLATFORM_URL: 'http://127.0.0.1:9/platform', PLATFORM_CLIENT_SECRET: 'client-secret-value', ERP_PUSH_SECRET: 'hmac-secret', ERP_PUSH_KEY: PUSH_KEY };

  it('a push is journaled like a contract request (its body, the answer to the ERP); a refused one is not; show prints it as dry-run does', async () => {
    const serving = await startServe(['--admin-port', '0', 'examples/push.yaml'], env);
    running.push(serving);
    const admin = serving.adminUrl as string;
    const send = (body: unknown, key?: string) => fetch(`${serving.urls[0]}/push/Orders`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) }, body: JSON.stringify(body) });
    const accepted = await send({ batchId: 'B-7', orders: [{ orderNo: 'SO-1' }] }, PUSH_KEY);
    expect(accepted.status).toBe(202);
    const [eventId] = ((await accepted.json()) as { events: string[] }).events;
    expect((await send({ orders: 3 }, PUSH_KEY)).status).toBe(400);
    expect((await send({ batchId: 'B-8', orders: [] })).status).toBe(401);

    const listed = await runCli(['requests', '--admin', admin, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const requests = JSON.parse(listed.stdout) as { id: string; operation: string; path: string; result: string; success: boolean }[];
    expect(requests.map((r) => [r.operation, r.path, r.result, r.success])).toEqual([['push/Orders', '/push/Orders', 'Invalid', false], ['push/Orders', '/push/Orders', 'Accepted', true]]);
    const found = JSON.parse((await runCli(['requests', '--admin', admin, '--contains', 'B-7', '--json'])).stdout) as { id: string }[];
    expect(found.map((r) => r.id)).toEqual([requests[1].id]);

    const shown = await runCli(['requests', 'show', requests[1].id, '--admin', admin]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`request ${requests[1].id}  push Orders  POST /push/Orders`);
    expect(shown.stdout).toContain('"batchId": "B-7"');
    expect(shown.stdout).toMatch(/answer to the ERP {2}202/);
    // Followed to the platform: stored, and where it stands now (the platform's token endpoint is not there: retried).
    expect(shown.stdout).toContain(`stored as event ${eventId}`);
    expect(shown.stdout).toMatch(new RegExp(`now {2}event ${eventId} {2}not delivered yet`));
    const invalid = await runCli(['requests', 'show', requests[0].id, '--admin', admin, '--json']);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ route: 'POST /push/Orders', mode: 'push', answer: { status: 400, body: { problems: [{ path: '/batchId', message: 'is required' }] } } });
    expect(shown.stdout + invalid.stdout).not.toContain(PUSH_KEY);

    const exported = await runCli(['requests', 'export', requests[1].id, '--as-test', '--admin', admin]);
    expect(exported.code).toBe(2);
    expect(exported.stderr).toContain('is a push (POST /push/Orders)');
  });
});
