/**
 * Issue 30's proof, the fragile parts: examples/soap/nav.yaml against the NAV-style SOAP stand-in when
 * values hold markup characters, when the ERP writes another prefix or CDATA, when it answers faults,
 * pages by bookmark, or answers a hostile or truncated document.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import { parseXml } from '../../engine/xml/read';
import { startNav, type NavRig } from './nav-start';

let rig: NavRig | undefined;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function nav(): Promise<NavRig> {
  rig = await startNav();
  return rig;
}

const attach = (r: NavRig, workOrderNumber: string, containerCode: string) =>
  r.engine.post('/WorkOrders/AttachWorkOrder', { workOrderNumber, containerCode, isAbandonedOrCancelled: false });
const containerOf = async (r: NavRig, order: string) =>
  (JSON.parse(((await r.engine.get(`/WorkOrders/Code?Code=${order}`)).body.data as { externalData: string }).externalData) as { container: string }).container;

describe('values with markup characters', () => {
  it('a value with & < > " \' and ]]> is written into an Update and read back intact, as text and as CDATA', async () => {
    const r = await nav();
    const hostile = `C-1 & <box> "A" 'B' ]]> end`;
    expect((await attach(r, 'SO-1002', hostile)).body).toMatchObject({ isResultSuccess: true });
    expect(r.erp.orders.get('SO-1002')!.containerCode).toBe(hostile);
    expect(await containerOf(r, 'SO-1002')).toBe(hostile);
    r.erp.switches.cdata = true;
    expect(await containerOf(r, 'SO-1002')).toBe(hostile);
  });

  it('an injection attempt arrives at the ERP as text: it adds no element', async () => {
    const r = await nav();
    const code = 'ops</No><No>x';
    const reply = await r.engine.get(`/WorkOrders/Code?Code=${encodeURIComponent(code)}`);
    expect(reply.body).toMatchObject({ isResultSuccess: false, externalMessage: `Order ${code} is not known in the ERP` });
    const sent = parseXml(Buffer.from(r.erp.requests[0]!.body));
    expect(sent.result).toEqual({ No: code });
  });
});

describe('how the ERP writes its answer', () => {
  it('another prefix and CDATA read the same as a default namespace and plain text, attributes included', async () => {
    const r = await nav();
    const read = async () => [(await r.engine.get('/WorkOrders/Code?Code=SO-1004')).body, (await r.engine.get('/Items/A-300')).body];
    const plain = await read();
    expect(plain[0]).toMatchObject({ isResultSuccess: true, data: { description: `Nuts & Bolts <M8> "special" 'rush'`, requests: [{ requestedAmount: 7, unitOfMeasure: 1 }] } });
    // The weight's unit is an attribute (@unit) beside the element's text (#text).
    expect(plain[1]).toMatchObject({ isResultSuccess: true, data: { number: 'A-300', weight: 25, unitOfMeasure: 4 } });
    r.erp.switches.prefix = 'nav';
    expect(await read()).toEqual(plain);
    r.erp.switches.cdata = true;
    expect(await read()).toEqual(plain);
  });
});

describe('faults', () => {
  it('a fault a rule claims gives its result with the faultstring; one no rule claims fails the call with it', async () => {
    const r = await nav();
    const report = await r.engine.engine.handle({ method: 'POST', path: '/WorkOrders/GetReport', body: { workOrdersNumbers: ['SO-1001', 'SO-4711'], storageId: 'WH-MAIN', remainingRequests: {} } });
    expect(report.outcome).toEqual({ resultName: 'WorkOrderDoesNotExist', externalMessage: "The Sales Header does not exist. Identification fields and values: Document Type='Order',No.='SO-4711'" });

    r.erp.switches.denied = ['Read'];
    const denied = await r.engine.engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1001' } });
    expect(denied.envelope).toMatchObject({ isResultSuccess: false, externalMessage: expect.stringMatching(/^You do not have the following permissions on CodeUnit Read: Execute/) });
    expect(denied.failure?.kind).toBe('ERP_REFUSED');
  });

  it('an Update with a Key another user made stale is refused by a concurrency fault, and the attach fails with it', async () => {
    const r = await nav();
    r.erp.switches.concurrentWriter = true;
    const reply = await attach(r, 'SO-1001', 'C-5');
    expect(reply.body).toMatchObject({ isResultSuccess: false, externalMessage: expect.stringMatching(/^Another user has modified the record for this Sales Order/) });
    expect(r.erp.orders.get('SO-1001')!.containerCode).toBe('');
  });
});

describe('ReadMultiple with bookmark paging', () => {
  it('reads 125 released orders over 3 pages of 50, each page asking after the Key of the last order read', async () => {
    const r = await nav();
    r.erp.addOrders(120);
    const reply = await r.engine.get('/WorkOrders');
    expect(reply.body).toMatchObject({ isResultSuccess: true });
    const numbers = (reply.body.data as { number: string }[]).map((o) => o.number);
    expect(numbers).toHaveLength(125);
    expect(new Set(numbers).size).toBe(125);
    const sent = r.erp.requests.map((request) => parseXml(Buffer.from(request.body)).result as Record<string, string>);
    expect(sent.map((request) => request.bookmarkKey)).toEqual([undefined, `1;${numbers[49]}`, `1;${numbers[99]}`]);
    expect(sent.map((request) => request.setSize)).toEqual(['50', '50', '50']);
  });
});

describe('hostile and broken answers', () => {
  it.each(['billion-laughs', 'xxe'] as const)('a %s answer (a DOCTYPE) is refused: the call fails and nothing of it is read', async (hostile) => {
    const r = await nav();
    r.erp.switches.hostile = hostile;
    const answer = await r.engine.engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1001' } });
    expect(answer.envelope).toMatchObject({ isResultSuccess: false, data: null });
    expect(answer.failure?.kind).toBe('ERP_BODY_UNREADABLE');
    expect(answer.failure?.message).toMatch(/DOCTYPE/i);
  });

  it('a truncated answer fails the call, never a partial list', async () => {
    const r = await nav();
    r.erp.switches.truncate = true;
    const answer = await r.engine.engine.handle({ method: 'GET', path: '/WorkOrders' });
    expect(answer.envelope).toMatchObject({ isResultSuccess: false, data: null });
    expect(answer.failure?.kind).toBe('ERP_BODY_UNREADABLE');
  });
});

describe('delivery: outbox', () => {
  it('an event NAV refuses with a fault goes to the dead letters with the faultstring, never delivered', async () => {
    const store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'nav-outbox-')));
    cleanups.push(() => store.close());
    rig = await startNav(store);
    rig.erp.switches.denied = ['ReportStatus'];
    expect((await rig.engine.post('/WorkOrders/Status', { number: 'SO-1001', status: 3 })).body).toMatchObject({ isResultSuccess: true });
    expect((await rig.engine.post('/WorkOrders/ForPutWall', { workOrderNumber: 'SO-1002', itemNumber: 'A-100', completedAmount: 1 })).body).toMatchObject({ isResultSuccess: true });
    for (let pass = 0; pass < 10 && (await rig.engine.engine.deliverer!.runOnce()) > 0; pass += 1);
    expect(await store.stats()).toMatchObject({ pending: 0, delivered: 1, dead: 1 });
    const [dead] = await store.list({ status: ['dead'] });
    expect(dead).toMatchObject({ orderingKey: 'SO-1001', last: { status: 500, error: expect.stringContaining('You do not have the following permissions on CodeUnit ReportStatus') } });
    expect(rig.erp.events.map((event) => event.action)).toEqual(['PutWallPlacement']);
  });
});
