import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, STACK_LINE, startRecordingErp, tempDir, writeFile } from './cli-process';

const ERP = { ERP_URL: 'http://erp.test/api/v1' };

const ORDER_ANSWERS = `order:
  status: 200
  body:
    docNo: SO-1001
    docId: 50001
    deliveryDate: "2026-12-01"
    positions:
      - { posNo: 10, article: { no: A-100 }, quantity: 12, unit: PCE, direction: OUT }
`;

const SECRET_MAPPING = `version: 1
name: secretive
system:
  baseUrl: \${ERP_URL}
  headers:
    Authorization: Bearer \${ERP_API_TOKEN}
  auth: { type: apiKey, in: query, name: api_key, value: "\${ERP_KEY}" }
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
        query:
          tenant: \${ERP_API_TOKEN}
          $skiptoken: page-2-position
    output: '{ "number": calls.article.body.articleNo }'
`;

/** A data route whose calls are a GET, a query sent as POST marked safe: true, and a POST that writes. */
const WRITING_MAPPING = `version: 1
name: writes
system:
  baseUrl: \${ERP_URL}
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
      - name: query
        method: POST
        path: /suiteql
        body: '{ "q": "SELECT id FROM item" }'
        safe: true
      - name: touch
        method: POST
        path: /articles/touch
        body: '{ "no": input.number }'
    output: '{ "number": calls.article.body.articleNo }'
`;

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('adapter-engine dry-run with recorded answers', () => {
  it('shows request, answer, rules, output, check and envelope in that order; exit 0 on success', async () => {
    const answers = writeFile(tempDir(), 'answers.yaml', ORDER_ANSWERS);
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'GetWorkOrderByCode', '--input', '{"Code":"SO-1001"}', '--answers', answers], { env: ERP });
    expect(result.code).toBe(0);
    const out = result.stdout;
    const order = ['1. call order', '→ GET http://erp.test/api/v1/sales-orders/SO-1001', '← 200', 'rule 1  response.status = 404', 'output', 'schema check  passed', 'envelope'].map((text) => out.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(out).toContain('(recorded answer, not sent)');
    expect(out).toMatch(/"result": 1, {2}← Succeed$/m);
  });

  it('exits 1 when the envelope is a failure, with the result name beside its number', async () => {
    const answers = writeFile(tempDir(), 'answers.yaml', 'order: { status: 404, body: null }\n');
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'GET /WorkOrders/Code?Code=SO-4711', '--answers', answers], { env: ERP });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/rule 1 {2}response\.status = 404 {2}→ WorkOrderDoesNotExist {2}matched/);
    expect(result.stdout).toMatch(/"result": 2, {2}← WorkOrderDoesNotExist \(failure\)$/m);
    expect(result.stdout).toContain('"externalMessage": "Order SO-4711 is not known in the ERP"');
  });

  it('--json prints the same trace as one document', async () => {
    const answers = writeFile(tempDir(), 'answers.json', JSON.stringify({ article: { status: 200, body: { articleNo: 'A-100', baseUnit: 'PCE' } } }));
    const result = await runCli(['dry-run', '--json', 'mappings/example.yaml', 'GET /Items/A-100', '--answers', answers], { env: ERP });
    expect(result.code).toBe(0);
    const trace = JSON.parse(result.stdout) as { operation: string; input: unknown; steps: { step: string }[]; resultName: string; envelope: { result: number; data: unknown } };
    expect(trace.operation).toBe('GetItem');
    expect(trace.input).toEqual({ number: 'A-100' });
    // Each expression is a step too (the call's path, the output), with what it read and gave.
    expect(trace.steps.map((s) => s.step)).toEqual(['expression', 'request', 'response', 'rule', 'expression', 'output', 'check']);
    expect(trace.steps[0]).toMatchObject({ what: 'calls.article.path', read: { input: { number: 'A-100' } }, gave: 'A-100' });
    expect(trace.resultName).toBe('Succeed');
    expect(trace.envelope).toMatchObject({ result: 1, data: { number: 'A-100', unitOfMeasure: 0 } });
  });

  it('a call without a recorded answer is named and fails the run (exit 1)', async () => {
    const answers = writeFile(tempDir(), 'answers.yaml', '{}\n');
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'GetWorkOrders', '--answers', answers], { env: ERP });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('no recorded answer for call orders');
  });

  it('an answers file naming a call the operation does not make is refused at line:col (exit 2)', async () => {
    const answers = writeFile(tempDir(), 'answers.yaml', 'orders: { body: [] }\nextra: { status: 200 }\n');
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'GetWorkOrders', '--answers', answers], { env: ERP });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/answers\.yaml:2:1 {2}"extra" is not a call of GetWorkOrders; it makes: orders/);
  });
});

describe('adapter-engine dry-run against a live external system', () => {
  it('sends data routes and masks secrets in headers, query and URL', async () => {
    const erp = await startRecordingErp({ articleNo: 'A-100' });
    stop = erp.close;
    const mapping = writeFile(tempDir(), 'secretive.yaml', SECRET_MAPPING);
    const token = 's3cr3t-token-value';
    const result = await runCli(['dry-run', mapping, 'GetItem', '-i', '{"number":"A-100"}'], { env: { ERP_URL: erp.url, ERP_API_TOKEN: token, ERP_KEY: 'plain-key-value' } });
    expect(result.code).toBe(0);
    expect(erp.received).toHaveLength(1);
    expect(erp.received[0].headers.authorization).toBe(`Bearer ${token}`);
    expect(result.stdout).not.toContain(token);
    expect(result.stdout).not.toContain('plain-key-value');
    expect(result.stdout).toContain('Authorization: ***');
    expect(result.stdout).toContain('tenant=***');
    expect(result.stdout).toContain('$skiptoken=page-2-position'); // a page's position, not a credential
    expect(result.stdout).toContain('(sent)');
  });

  it('does not send event routes without --live, and says so', async () => {
    const erp = await startRecordingErp({ eventId: 1 });
    stop = erp.close;
    const input = '{"workOrderNumber":"SO-1001","itemNumber":"A-100"}';
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'CancelPutWallItem', '-i', input], { env: { ERP_URL: erp.url } });
    expect(result.code).toBe(0);
    expect(erp.received).toHaveLength(0);
    expect(result.stdout).toContain('not sent: event routes go out only with --live');
    expect(result.stdout).toContain('"docNo": "SO-1001"');
  });

  it('without --live a data route sends its GETs and safe: true calls, and shows the writes without sending them', async () => {
    const erp = await startRecordingErp({ articleNo: 'A-100' });
    stop = erp.close;
    const mapping = writeFile(tempDir(), 'writes.yaml', WRITING_MAPPING);
    const result = await runCli(['dry-run', mapping, 'GetItem', '-i', '{"number":"A-100"}'], { env: { ERP_URL: erp.url } });
    expect(erp.received.map((request) => `${request.method} ${request.url}`)).toEqual(['GET /api/v1/articles/A-100', 'POST /api/v1/suiteql']);
    expect(result.stdout).toContain('3. call touch  (not sent: a POST can change the ERP; dry-run sends it only with --live, or mark a read safe: true)');
    expect(result.stdout).toContain('→ POST http://127.0.0.1');
    expect(result.stdout).toContain('synthetic answer: nothing was sent');
    expect(result.stdout.match(/\(sent\)/g)).toHaveLength(2);
    const live = await runCli(['dry-run', mapping, 'GetItem', '-i', '{"number":"A-100"}', '--live'], { env: { ERP_URL: erp.url } });
    expect(live.code, live.stderr).toBe(0);
    expect(erp.received.map((request) => request.method)).toEqual(['GET', 'POST', 'GET', 'POST', 'POST']);
  });

  it('exits 1 when the outbox delivery would be a dead letter, though the platform would hear success', async () => {
    const answers = writeFile(tempDir(), 'answers.yaml', 'placement: { status: 422, body: { message: "closed" } }\n');
    const input = '{"workOrderNumber":"SO-1001","itemNumber":"A-100","completedAmount":2}';
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'ConfirmPutWallPlacement', '-i', input, '--answers', answers], { env: ERP });
    expect(result.stdout).toMatch(/"result": 1, {2}← Succeed$/m);
    expect(result.stdout).toContain('delivery  dead letter: not retried');
    expect(result.code).toBe(1);
  });

  it('says an event route\'s delivery would be delivered when nothing was sent', async () => {
    const input = '{"workOrderNumber":"SO-1001","itemNumber":"A-100","completedAmount":2}';
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'ConfirmPutWallPlacement', '-i', input], { env: ERP });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('synthetic answer: nothing was sent');
    expect(result.stdout).toContain('delivery  would be delivered');
  });

  it('sends event routes with --live', async () => {
    const erp = await startRecordingErp({ eventId: 1 });
    stop = erp.close;
    const input = '{"workOrderNumber":"SO-1001","itemNumber":"A-100"}';
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'POST /WorkOrders/CancelPutWallItem', '-i', input, '--live'], { env: { ERP_URL: erp.url } });
    expect(result.code).toBe(0);
    expect(erp.received).toHaveLength(1);
    expect(JSON.parse(erp.received[0].body)).toEqual({ docNo: 'SO-1001', article: 'A-100' });
  });

  it('reads the input from a file and runs against the bundled example ERP', async () => {
    const input = writeFile(tempDir(), 'input.yaml', 'workOrdersNumbers: [SO-1001]\nstorageId: WH-MAIN\nremainingRequests: { A-100: 2 }\n');
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'GetReport', '--input-file', input, '--example-erp', '--json']);
    expect(result.code).toBe(0);
    const trace = JSON.parse(result.stdout) as { envelope: { data: unknown } };
    expect(trace.envelope.data).toMatchObject({ missingQuantities: { 'A-100': 2 } });
  });
});

describe('adapter-engine dry-run usage errors (exit 2)', () => {
  it.each([
    [['GetWorkOrderByKode'], /"GetWorkOrderByKode" is not a contract operation or route; use one of:\n {2}GetWorkOrders +GET \/WorkOrders/],
    [['GetReport'], /GetReport takes a JSON body; give it with --input/],
    [['GetItem', '--input', '{number:'], /--input is not valid JSON/],
    [['GetItem', '--input-file', 'missing.json'], /cannot read the input file missing\.json/],
    [['GetItem', '--live', '--answers', 'a.yaml', '-i', '{}'], /--live and --answers exclude each other/],
  ])('%j', async (args, message) => {
    const result = await runCli(['dry-run', 'mappings/example.yaml', ...args], { env: ERP });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it('a mapping with errors exits 1 with file:line:col and no stack trace', async () => {
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'GetWorkOrders']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/mappings\/example\.yaml:\d+:\d+ {2}environment variable ERP_URL is not set/);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });
});

describe('dry-run of a push endpoint', () => {
  // The push guide's mapping (docs/push-endpoints.md): Orders fans a batch of orders out, 100 to a platform call.
  const PUSHING = 'examples/push.yaml';
  const env = { ERP_URL: 'http://erp.test', PLATFORM_URL: 'http://platform.test/integration', PLATFORM_CLIENT_SECRET: 'client-secret-value', ERP_PUSH_SECRET: 's', ERP_PUSH_KEY: 'k' };

  it('shows each platform call the push makes (not sent), the token masked, and the 202 the ERP gets', async () => {
    const result = await runCli(['dry-run', PUSHING, 'POST /push/Orders', '--input', '{"batchId":"B-1","orders":[{"orderNo":"SO-1"},{"orderNo":"SO-2"}]}'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('dry run  push Orders');
    expect(result.stdout.match(/→ POST http:\/\/platform\.test\/integration\/work-orders\/batch/g)).toHaveLength(1);
    expect(result.stdout).toContain('"number": "SO-2"');
    expect(result.stdout).not.toContain('client-secret-value');
    expect(result.stdout).toMatch(/answer to the ERP {2}202/);
    // Nothing was sent: the delivery says what would happen.
    expect(result.stdout).toContain('synthetic answer: nothing was sent');
    expect(result.stdout).toContain('delivery  would be delivered');
    expect(result.stdout).not.toMatch(/delivery {2}delivered/);
  });

  it('an invalid push shows the 400 with every problem and exits 1', async () => {
    const result = await runCli(['dry-run', PUSHING, '/push/Orders', '--input', '{"orders": 3}', '--json'], { env });
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { status: number; answer: { problems: unknown[] } };
    expect(json.status).toBe(400);
    expect(json.answer.problems).toEqual([{ path: '/batchId', message: 'is required' }]);
  });
});

describe('adapter-engine dry-run --file (issue 17)', () => {
  it('reads the file, sends it Base64 in fileContent with the type from its extension', async () => {
    const result = await runCli(['dry-run', 'mappings/example.yaml', 'ParseItemFile', '--file', 'examples/files/items.csv', '--json'], { env: ERP });
    expect(result.code).toBe(0);
    const trace = JSON.parse(result.stdout) as { input: { fileType: number; fileContent: string }; envelope: { isResultSuccess: boolean; data: { number: string }[] } };
    expect(trace.input.fileType).toBe(1);
    expect(Buffer.from(trace.input.fileContent, 'base64').toString('latin1')).toBe(fs.readFileSync('examples/files/items.csv', 'latin1'));
    expect(trace.envelope.isResultSuccess).toBe(true);
    expect(trace.envelope.data.length).toBeGreaterThan(0);
  });

  it('--input gives the type of a file whose extension does not say it; other routes refuse --file', async () => {
    const dir = tempDir();
    const file = writeFile(dir, 'export.txt', fs.readFileSync('examples/files/items.json', 'utf8'));
    const typed = await runCli(['dry-run', 'mappings/example.yaml', 'ParseItemFile', '--file', file, '--input', '{"fileType": 0}'], { env: ERP });
    expect(typed.code).toBe(0);
    const untyped = await runCli(['dry-run', 'mappings/example.yaml', 'ParseItemFile', '--file', file], { env: ERP });
    expect(untyped.code).toBe(2);
    expect(untyped.stderr).toContain('cannot tell the file type');
    const wrongRoute = await runCli(['dry-run', 'mappings/example.yaml', 'GetItem', '--file', file], { env: ERP });
    expect(wrongRoute.code).toBe(2);
    expect(wrongRoute.stderr).toContain('--file is for the file routes');
  });
});
