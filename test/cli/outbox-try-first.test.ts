import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeWithPostgres } from '../support/postgres';
import { eventually, runCli, startServe, stoppedAfterEach, tempDir, writeFile, type Serving } from './cli-process';

/**
 * outbox.tryFirstMs with real processes: `serve` on a SQLite state directory and on PostgreSQL, a
 * stand-in ERP whose answer each test decides per work order (take it, refuse it inside a 200, answer
 * 503, or hold the answer until the test lets it go). The platform hears the ERP's verdict when it comes
 * in time; otherwise it hears success and the event is delivered in the background, never twice at once.
 *
 * The three blocks (the cases on SQLite, kill -9 on SQLite, the cases on PostgreSQL) run side by side:
 * each mostly waits on its processes and on the deliverer's polls, and each has its own processes,
 * state and stand-in ERP. The cases inside one block run in order (it.sequential), sharing its `serve`.
 */

/** Every block's processes: stopped after each of its tests (`running`, `cleanups`), and the ones its cases share when it ends (`shared`). */
function blockProcesses() {
  return { ...stoppedAfterEach(afterEach), shared: stoppedAfterEach(afterAll) };
}

/** A test of a block: the block runs beside the others, its own tests one after another. */
const inOrder = it.sequential;

const MAPPING = `version: 1
name: tryfirst
system:
  baseUrl: \${ERP_URL}
  timeoutMs: 4000
  refusal:
    when: $exists(response.body.error)
    message: response.body.error.message
operations:
  ConfirmPutWallPlacement:
    delivery: outbox
    outbox: { orderingKey: input.workOrderNumber, tryFirstMs: 1500, onDeadLetter: skip }
    calls:
      - name: placement
        method: POST
        path: /placements
        body: '{ "docNo": input.workOrderNumber, "qty": input.completedAmount }'
`;

type Behaviour = 'take' | 'refuse' | 'busy' | 'hold';
interface Placement { readonly docNo: string; readonly qty: number; readonly key: string }

/** The stand-in ERP: `behave(docNo, qty)` decides each answer; held answers wait for `release()`. Closed by `until` (after the test, or when the block ends). */
async function standInErp(behave: (docNo: string, qty: number) => Behaviour, until: (() => Promise<void>)[]) {
  const received: Placement[] = [];
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString(); });
    req.on('end', () => {
      const body = JSON.parse(text) as { docNo: string; qty: number };
      received.push({ docNo: body.docNo, qty: body.qty, key: String(req.headers['idempotency-key']) });
      const respond = (how: Behaviour) => {
        if (how === 'busy') return res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"maintenance"}');
        if (how === 'refuse') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `work order ${body.docNo} is closed` } }));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      };
      const how = behave(body.docNo, body.qty);
      if (how === 'hold') held.push(() => respond('take'));
      else respond(how);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  until.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    received,
    heldCount: () => held.length,
    release: () => { for (const answer of held.splice(0)) answer(); },
  };
}

interface Envelope { readonly isResultSuccess: boolean; readonly result: number; readonly externalMessage: string | null }
interface Listed { readonly id: string; readonly status: string; readonly attempts: number; readonly orderingKey: string; readonly last?: { readonly error: string } }

function place(serving: Serving, docNo: string, qty: number): Promise<Envelope> {
  return fetch(`${serving.urls[0]}/WorkOrders/ForPutWall`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workOrderNumber: docNo, itemNumber: 'A-100', completedAmount: qty }),
  }).then(async (response) => (await response.json()) as Envelope);
}

/** Where the test's events stand, read by `adapter-engine outbox list` as support staff would. */
type Where = { readonly stateDir: string } | { readonly databaseUrl: string };
async function events(where: Where, key: string): Promise<Listed[]> {
  const args = ['outbox', 'list', '--status', 'pending,dead,delivered,dropped,refused', '--key', key, '--json'];
  const result = 'stateDir' in where ? await runCli([...args, '--state-dir', where.stateDir]) : await runCli(args, { env: { DATABASE_URL: where.databaseUrl } });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Listed[];
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The cases, run against either store. They share one stand-in ERP and one `serve` (started by the
 * first case): each case places its own work order, whose number decides how the ERP answers it.
 */
function tryFirstCases(store: () => Where) {
  const { running, shared } = blockProcesses();
  const mappingFile = () => writeFile(tempDir(), 'tryfirst.yaml', MAPPING);
  const serve = async (erpUrl: string, until: Serving[] = running): Promise<Serving> => {
    const where = store();
    const serving = 'stateDir' in where
      ? await startServe(['--state-dir', where.stateDir, mappingFile()], { ERP_URL: erpUrl })
      : await startServe([mappingFile()], { ERP_URL: erpUrl, DATABASE_URL: where.databaseUrl });
    until.push(serving);
    return serving;
  };
  const behaviours = new Map<string, (qty: number) => Behaviour>();
  let started: Promise<{ erp: Awaited<ReturnType<typeof standInErp>>; serving: Serving }> | undefined;
  /** The shared ERP and serve, with how the ERP answers this case's work order (`take` unless said). */
  const sharedFor = (docNo: string, behave: (qty: number) => Behaviour = () => 'take') => {
    behaviours.set(docNo, behave);
    started ??= (async () => {
      const erp = await standInErp((number, qty) => behaviours.get(number)?.(qty) ?? 'take', shared.cleanups);
      return { erp, serving: await serve(erp.url, shared.running) };
    })();
    return started;
  };
  const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

  inOrder('the ERP takes it in time: the platform hears success, the event is delivered once', async () => {
    const docNo = unique('OK');
    const { erp, serving } = await sharedFor(docNo);
    expect(await place(serving, docNo, 1)).toMatchObject({ isResultSuccess: true, result: 1 });
    // Delivered before the answer: the event stands delivered as soon as the platform has heard.
    expect((await events(store(), docNo)).map((e) => [e.status, e.attempts])).toEqual([['delivered', 1]]);
    await wait(1200); // two poll intervals of the deliverer: it must not send the event again
    expect(erp.received.filter((p) => p.docNo === docNo)).toHaveLength(1);
  }, 60_000);

  inOrder('the ERP refuses it in time: the platform hears the refusal, the event is settled refused, not dead', async () => {
    const docNo = unique('NO');
    const { erp, serving } = await sharedFor(docNo, () => 'refuse');
    const answer = await place(serving, docNo, 1);
    expect(answer.isResultSuccess).toBe(false);
    expect(answer.externalMessage).toBe(`work order ${docNo} is closed`);
    const [event] = await events(store(), docNo);
    expect(event).toMatchObject({ status: 'refused', attempts: 1 });
    expect(event.last?.error).toContain('is closed');
    const dead = await events(store(), docNo).then((all) => all.filter((e) => e.status === 'dead'));
    expect(dead).toEqual([]);
    await wait(1200);
    expect(erp.received.filter((p) => p.docNo === docNo)).toHaveLength(1);
  }, 60_000);

  inOrder('a slow ERP: the platform hears success at tryFirstMs, the first try goes on and is the only delivery', async () => {
    const docNo = unique('SLOW');
    const tries = () => erp.received.filter((p) => p.docNo === docNo).length;
    const { erp, serving } = await sharedFor(docNo, () => (tries() === 1 ? 'hold' : 'take'));
    // The answer comes while the ERP still holds its answer: the verdict was not waited for.
    expect(await place(serving, docNo, 1)).toMatchObject({ isResultSuccess: true });
    expect(erp.heldCount()).toBe(1);
    expect((await events(store(), docNo)).map((e) => e.status)).toEqual(['pending']);
    await wait(1200); // the deliverer polls meanwhile: the leased event is not sent a second time
    expect(tries()).toBe(1);
    erp.release();
    for (let attempt = 0; attempt < 100 && (await events(store(), docNo))[0].status !== 'delivered'; attempt += 1) await wait(100);
    expect((await events(store(), docNo)).map((e) => [e.status, e.attempts])).toEqual([['delivered', 1]]);
    expect(tries()).toBe(1);
  }, 60_000);

  inOrder('an ERP that cannot take it now (503): the platform hears success, delivery retries in the background', async () => {
    let busy = true;
    const docNo = unique('BUSY');
    const { serving } = await sharedFor(docNo, () => (busy ? 'busy' : 'take'));
    expect(await place(serving, docNo, 1)).toMatchObject({ isResultSuccess: true });
    const [event] = await events(store(), docNo);
    expect(event).toMatchObject({ status: 'pending', attempts: 1 });
    expect(event.last?.error).toMatch(/503/);
    busy = false;
    for (let tries = 0; tries < 100 && (await events(store(), docNo))[0].status !== 'delivered'; tries += 1) await wait(200);
    expect((await events(store(), docNo))[0].status).toBe('delivered');
  }, 60_000);

  inOrder('an unreachable ERP: the platform hears success, the event waits for a later attempt', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const serving = await serve(`http://127.0.0.1:${port}/api/v1`);
    const docNo = unique('DOWN');
    expect(await place(serving, docNo, 1)).toMatchObject({ isResultSuccess: true, result: 1 });
    const [event] = await events(store(), docNo);
    expect(event).toMatchObject({ status: 'pending', attempts: 1 });
  }, 60_000);

  inOrder('an event whose key has an earlier event pending is not tried first: order holds, and its refusal is a dead letter', async () => {
    const docNo = unique('KEY');
    const first = () => erp.received.filter((p) => p.docNo === docNo).length === 1;
    const { erp, serving } = await sharedFor(docNo, (qty) => (qty === 2 ? 'refuse' : first() ? 'hold' : 'take'));
    expect(await place(serving, docNo, 1)).toMatchObject({ isResultSuccess: true }); // held past tryFirstMs
    // The ERP would refuse the second, but it is not tried while the first is pending: the platform hears success.
    expect(await place(serving, docNo, 2)).toMatchObject({ isResultSuccess: true });
    expect(erp.received.filter((p) => p.docNo === docNo).map((p) => p.qty)).toEqual([1]);
    erp.release();
    await eventually(() => erp.received.filter((p) => p.docNo === docNo).length === 2, 'the second event delivered after the first');
    expect(erp.received.filter((p) => p.docNo === docNo).map((p) => p.qty)).toEqual([1, 2]);
    for (let tries = 0; tries < 100 && (await events(store(), docNo)).some((e) => e.status === 'pending'); tries += 1) await wait(100);
    expect((await events(store(), docNo)).map((e) => e.status)).toEqual(['delivered', 'dead']);
  }, 60_000);
}

describe('outbox.tryFirstMs on SQLite', { concurrent: true }, () => {
  const sharedState = tempDir();
  tryFirstCases(() => ({ stateDir: sharedState }));
});

describe('outbox.tryFirstMs on SQLite, a crash', { concurrent: true }, () => {
  const { running, cleanups } = blockProcesses();

  inOrder('kill -9 during the first try loses nothing: the event was stored first and is delivered after the restart', async () => {
    const stateDir = tempDir();
    let holding = true;
    const erp = await standInErp(() => (holding ? 'hold' : 'take'), cleanups);
    const file = writeFile(tempDir(), 'tryfirst.yaml', MAPPING);
    const first = await startServe(['--state-dir', stateDir, file], { ERP_URL: erp.url });
    running.push(first);
    const answered = place(first, 'CRASH-1', 1).catch(() => 'no answer');
    await eventually(() => erp.heldCount() === 1, 'the first try reached the ERP');
    first.child.kill('SIGKILL');
    expect(await answered).toBe('no answer');
    holding = false;
    erp.release(); // the answer goes to a dead process: the ERP's first copy is lost to the engine
    const second = await startServe(['--state-dir', stateDir, file], { ERP_URL: erp.url });
    running.push(second);
    // The first try's lease (10 s: timeoutMs 4000 and a 5 s margin, at least 10 s) runs out, and the event is delivered again: watched at the
    // ERP (cheap), then read as support staff would (each read is a CLI process).
    await eventually(() => erp.received.length === 2, 'the event delivered again once the lease ran out', 300);
    for (let tries = 0; tries < 100 && (await events({ stateDir }, 'CRASH-1'))[0]?.status !== 'delivered'; tries += 1) await wait(100);
    expect((await events({ stateDir }, 'CRASH-1')).map((e) => e.status)).toEqual(['delivered']);
    // Sent twice (at least once), as one event: the same idempotency key both times.
    expect(erp.received).toHaveLength(2);
    expect(new Set(erp.received.map((p) => p.key)).size).toBe(1);
  }, 90_000);
});

describeWithPostgres('outbox.tryFirstMs on PostgreSQL', (server) => {
  tryFirstCases(() => ({ databaseUrl: server().url }));
}, { concurrent: true });
