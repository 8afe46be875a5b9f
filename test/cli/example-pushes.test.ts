import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE, ROOT, startServe, startupLines, stoppedAfterEach, tempDir, writeFile } from './cli-process';

/**
 * `npm start`'s pushes, as the README tour runs them: `serve --example-erp` starts the example ERP, the
 * platform stand-in and the engine; the README's curl commands make the ERP push a new order, a
 * cancelled line and a stock change; each reaches the stand-in once, in order, as the mapping shapes it.
 */

const { running } = stoppedAfterEach(afterEach);
const run = promisify(execFile);

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The README's shell block that makes the example ERP push, with its ports. */
function readmePushCommands(ports: { engine: number; erp: number; platform: number }): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /```sh\n# needs a running engine\n(curl -X POST http:\/\/localhost:8081\/api\/v1\/sales-orders[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('the README no longer shows the push commands');
  return block
    .replaceAll('localhost:8080', `127.0.0.1:${ports.engine}`)
    .replaceAll('localhost:8081', `127.0.0.1:${ports.erp}`)
    .replaceAll('localhost:8082', `127.0.0.1:${ports.platform}`)
    .replaceAll(/^curl /gm, 'curl -sS --fail-with-body ');
}

describe('npm start: the example ERP pushes through the engine to the platform stand-in', () => {
  it('the README\'s commands push a new order, a cancelled line and a stock change; each arrives once, in order', async () => {
    const ports = { engine: await freePort(), erp: await freePort(), platform: await freePort() };
    const serving = await startServe(['--example-erp', '--port', String(ports.engine), 'mappings/example.yaml'], { ERP_PORT: String(ports.erp), PLATFORM_PORT: String(ports.platform) });
    running.push(serving);
    const messages = startupLines(serving.output().stdout).map((line) => line.msg);
    expect(messages).toContain(`example ERP listening on http://127.0.0.1:${ports.erp}/api/v1 (it pushes to http://127.0.0.1:${ports.engine}/push)`);
    expect(messages).toContain(`platform stand-in listening on http://127.0.0.1:${ports.platform}/integration (what arrived: GET http://127.0.0.1:${ports.platform}/integration/received)`);

    await run('sh', ['-ec', readmePushCommands(ports)], { cwd: ROOT });

    const erp = await (await fetch(`http://127.0.0.1:${ports.erp}/api/v1/pushes`)).json() as { pushes: { push: string; answer: { status: number; body: { events: string[] } } }[] };
    expect(erp.pushes.map((push) => [push.push, push.answer.status])).toEqual([['NewOrder', 202], ['CancelOrderLine', 202], ['StockChange', 202]]);
    type Received = { path: string; idempotencyKey: string; body: Record<string, unknown> };
    let received: Received[] = [];
    // Delivery runs after the 202: wait until the three have arrived (or 10 s).
    for (let tries = 0; tries < 100 && received.length < 3; tries += 1) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      received = ((await (await fetch(`http://127.0.0.1:${ports.platform}/integration/received`)).json()) as { received: Received[] }).received;
    }
    expect(received.map((call) => call.path)).toEqual(['/work-orders', '/work-orders/SO-2001/cancelled-requests', '/stock-levels']);
    // Each delivery carries its outbox event id, the id the ERP got in its 202.
    expect(received.map((call) => call.idempotencyKey)).toEqual(erp.pushes.map((push) => push.answer.body.events[0]));
    expect(received[0].body).toMatchObject({ number: 'SO-2001', dueDate: '2026-12-15T00:00:00Z', requests: [{ itemNumber: 'A-100', requestedAmount: 5 }, { itemNumber: 'A-200', requestedAmount: 20 }] });
    expect(received[1].body).toEqual({ workOrderNumber: 'SO-2001', requestExternalIdentifier: expect.stringMatching(/-20$/) as unknown, itemNumber: 'A-200' });
    expect(received[2].body).toEqual({ itemNumber: 'A-300', availableAmount: 7, unitOfMeasure: expect.any(Number) as unknown });
  }, 60_000);

  it('with several mappings, each push goes to the prefix of the mapping that has that push endpoint, on the port actually bound', async () => {
    const dir = tempDir();
    // "alpha" comes first and has no push endpoints; "beta" is the example under another name.
    writeFile(dir, 'alpha.yaml', 'version: 1\nname: alpha\nsystem:\n  baseUrl: ${ERP_URL}\noperations:\n  GetExternalIndexableValueLabel:\n    static:\n      label: ERP id\n');
    writeFile(dir, 'beta.yaml', fs.readFileSync(EXAMPLE, 'utf8').replace(/^name: example$/m, 'name: beta'));
    const serving = await startServe(['--example-erp', dir], {}, 2);
    running.push(serving);
    const engine = new URL(serving.urls[0]).port;
    expect(serving.urls).toEqual([`http://127.0.0.1:${engine}/alpha`, `http://127.0.0.1:${engine}/beta`]);
    const lines = startupLines(serving.output().stdout);
    const erpLine = lines.find((line) => line.msg.startsWith('example ERP listening on '));
    expect(erpLine).toMatchObject({ level: 30, pushesTo: `http://127.0.0.1:${engine}/<mapping>/push` });
    expect(erpLine?.msg).toContain(`(it pushes to http://127.0.0.1:${engine}/<mapping>/push, to the mapping that has the push endpoint)`);
    const erpUrl = String(erpLine?.url);
    const platformUrl = String(lines.find((line) => line.msg.startsWith('platform stand-in listening on '))?.url);
    const post = (path: string, body: unknown) => fetch(`${erpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/sales-orders', { docNo: 'SO-2001', deliveryDate: '2026-12-15', positions: [{ article: 'A-100', quantity: 5 }] })).status).toBe(201);
    expect((await post('/articles/A-300/stock', { available: 7 })).status).toBe(201);

    const erp = await (await fetch(`${erpUrl}/pushes`)).json() as { pushes: { push: string; answer: { status: number } }[] };
    expect(erp.pushes.map((push) => [push.push, push.answer.status])).toEqual([['NewOrder', 202], ['StockChange', 202]]);
    let received: { path: string }[] = [];
    for (let tries = 0; tries < 100 && received.length < 2; tries += 1) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      received = ((await (await fetch(`${platformUrl}/received`)).json()) as { received: { path: string }[] }).received;
    }
    expect(received.map((call) => call.path)).toEqual(['/work-orders', '/stock-levels']);
  }, 60_000);
});
