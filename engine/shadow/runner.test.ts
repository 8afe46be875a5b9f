import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSchemaRegistry } from '../contract/schema-registry';
import { createEngine, type Engine } from '../core/engine';
import { createJournal } from '../journal/journal';
import { silentLogger } from '../log';
import { NO_METER, type Meter } from '../metrics/meter';
import { mappingFromText } from '../../test/support/engine';
import { createShadowRunner } from './runner';

/**
 * The shadow runner beside an engine in one process, against a stand-in ERP on 127.0.0.1: which
 * answers a candidate runs on (reads only, with a journal) and what it counts.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const mapping = (number: string) => `version: 1
name: acme
system:
  baseUrl: \${ERP_URL}
operations:
  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    output: '{ "number": ${number}, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
  CancelWorkOrderRequest:
    calls:
      - name: cancel
        method: POST
        path: /orders/{input.workOrderNumber}/cancellation
`;

async function erp(): Promise<{ url: string; count: () => number }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    count += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ no: 'SO-1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, count: () => count };
}

function counted(): { meter: Meter; outcomes: string[] } {
  const outcomes: string[] = [];
  return { meter: { ...NO_METER, shadow: ({ operation, outcome }) => outcomes.push(`${operation} ${outcome}`) }, outcomes };
}

async function served(journalSize: number, now?: () => number) {
  const stand = await erp();
  const env = { ERP_URL: stand.url };
  const engine: Engine = createEngine({ mappings: [mappingFromText(mapping('calls.order.body.no'), env)], journal: createJournal({ size: journalSize }) });
  closers.push(() => engine.close());
  const { meter, outcomes } = counted();
  const runner = createShadowRunner({ journal: engine.journal, meter, log: silentLogger, maxCpuShare: 1, now, schemas: createSchemaRegistry() });
  // Codes starting with X get a number of another kind (a changed dueDate too).
  runner.replace([mappingFromText(mapping('calls.order.body.no & "-B"').replace('"dueDate": "2026-12-01T00:00:00Z"', '"dueDate": $substring(input.Code, 0, 1) = "X" ? "2027-01-01T00:00:00Z" : "2026-12-01T00:00:00Z"'), env)]);
  return { engine, runner, outcomes, stand };
}

describe('the shadow runner', () => {
  it('runs the candidate on read requests only, without calling the ERP, and keeps the difference in the journal', async () => {
    const { engine, runner, outcomes, stand } = await served(100);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } }));
    runner.answered(await engine.handle({ method: 'POST', path: '/WorkOrders/CancelWorkOrderRequest', body: { workOrderNumber: 'SO-1' } }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrderByCode different']);
    expect(stand.count()).toBe(2);
    const [kept] = await engine.journal.list({ mapping: 'acme~shadow' });
    expect((await engine.journal.get(kept.id))?.shadow?.differences).toEqual([{ path: '$.data.number', old: 'SO-1', new: 'SO-1-B' }]);
  });

  it('keeps the candidate\'s ERP session between its runs, as a served mapping does', async () => {
    // The live mapping logs in on its first request only: the second request's recorded answers hold
    // no login. A candidate that started afresh on every run would fail there for want of one.
    let logins = 0;
    const server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/login') logins += 1;
      res.end(JSON.stringify(req.url === '/api/login' ? { token: 'T-1' } : { no: 'SO-1' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const env = { ERP_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` };
    const withSession = (number: string) => mapping(number).replace('  baseUrl: ${ERP_URL}\n', `  baseUrl: \${ERP_URL}
  session:
    login:
      name: login
      method: POST
      path: /login
    value: response.body.token
`);
    const engine = createEngine({ mappings: [mappingFromText(withSession('calls.order.body.no'), env)], journal: createJournal({ size: 100 }) });
    closers.push(() => engine.close());
    const { meter, outcomes } = counted();
    const runner = createShadowRunner({ journal: engine.journal, meter, log: silentLogger, maxCpuShare: 1, schemas: createSchemaRegistry() });
    runner.replace([mappingFromText(withSession('calls.order.body.no & "-B"'), env)]);
    for (const code of ['SO-1', 'SO-2']) runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: code } }));
    await runner.idle();
    expect(logins).toBe(1);
    expect(outcomes).toEqual(['GetWorkOrderByCode different', 'GetWorkOrderByCode different']);
  });

  it('keeps one run a second of each kind of difference in the journal, and counts every run', async () => {
    let clock = 0;
    const { engine, runner, outcomes } = await served(100, () => clock);
    const read = async (code: string) => {
      runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: code } }));
      await runner.idle();
    };
    for (const code of ['SO-1', 'SO-2', 'X-1', 'SO-3', 'X-2']) await read(code);
    clock += 1000;
    await read('SO-4');
    expect(outcomes).toHaveLength(6);
    const kept = await engine.journal.list({ mapping: 'acme~shadow' });
    expect(kept.map((summary) => summary.path).sort()).toEqual(['/WorkOrders/Code?Code=SO-1', '/WorkOrders/Code?Code=SO-4', '/WorkOrders/Code?Code=X-1']);
  });

  it('counts a read it cannot replay as failed when the journal keeps no trace of the ERP answers', async () => {
    const { engine, runner, outcomes } = await served(0);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrderByCode failed']);
  });
});
