import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../core/engine';
import { createJournal } from '../journal/journal';
import { silentLogger } from '../log';
import { NO_METER, type Meter } from '../metrics/meter';
import { mappingFromText } from '../../test/support/engine';
import { createShadowRunner, type Candidate } from './runner';

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
  GetWorkOrdersForPutWall:
    calls:
      - name: batch
        method: GET
        path: /batches/{input.code}
    output: 'calls.batch.body.orders.{ "number": no & ${number.includes('-B') ? '"-B"' : '""'}, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
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
    res.end(JSON.stringify({ no: 'SO-1', orders: [{ no: 'SO-1' }, { no: 'SO-2' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, count: () => count };
}

/** A candidate as the server hands it over: compiled here, compiled again in the shadow's thread from the same text. */
function candidate(text: string, env: NodeJS.ProcessEnv): Candidate {
  return { mapping: mappingFromText(text, env), text, baseDir: process.cwd() };
}

const threadOf = (env: NodeJS.ProcessEnv) => ({ env, compileOptions: {} });

/** No server here: the requests are answered before the runner hears of them. */
const NO_LIVE_REQUESTS = { inFlight: 0, idle: () => Promise.resolve() };

/** The nice value of each thread of this process (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNices(): number[] {
  return fs.readdirSync(`/proc/${process.pid}/task`).flatMap((task) => {
    try {
      const stat = fs.readFileSync(`/proc/${process.pid}/task/${task}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // a thread that ended since the listing
    }
  });
}

function counted(): { meter: Meter; outcomes: string[] } {
  const outcomes: string[] = [];
  return { meter: { ...NO_METER, shadow: ({ operation, outcome }) => outcomes.push(`${operation} ${outcome}`) }, outcomes };
}

async function served(journalSize: number, now?: () => number, live = NO_LIVE_REQUESTS) {
  const stand = await erp();
  const env = { ERP_URL: stand.url };
  const engine: Engine = createEngine({ mappings: [mappingFromText(mapping('calls.order.body.no'), env)], journal: createJournal({ size: journalSize }) });
  closers.push(() => engine.close());
  const { meter, outcomes } = counted();
  const runner = createShadowRunner({ journal: engine.journal, meter, log: silentLogger, maxCpuShare: 1, now, thread: threadOf(env), live });
  closers.push(() => runner.close());
  // Codes starting with X get a number of another kind (a changed dueDate too).
  runner.replace([candidate(mapping('calls.order.body.no & "-B"').replace('"dueDate": "2026-12-01T00:00:00Z"', '"dueDate": $substring(input.Code, 0, 1) = "X" ? "2027-01-01T00:00:00Z" : "2026-12-01T00:00:00Z"'), env)]);
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

  it('runs on a list an expression made (a list that cannot cross to a thread by structured clone)', async () => {
    const { engine, runner, outcomes } = await served(100);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/ForPutWall/B-1' }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrdersForPutWall different']);
    const [kept] = await engine.journal.list({ mapping: 'acme~shadow' });
    expect((await engine.journal.get(kept.id))?.shadow?.differences).toEqual([
      { path: '$.data[0].number', old: 'SO-1', new: 'SO-1-B' },
      { path: '$.data[1].number', old: 'SO-2', new: 'SO-2-B' },
    ]);
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
    const runner = createShadowRunner({ journal: engine.journal, meter, log: silentLogger, maxCpuShare: 1, thread: threadOf(env), live: NO_LIVE_REQUESTS });
    closers.push(() => runner.close());
    runner.replace([candidate(withSession('calls.order.body.no & "-B"'), env)]);
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

  it('runs the candidates in a thread of the lowest priority, and leaves the live thread\'s priority as it was', async () => {
    const liveBefore = os.getPriority();
    const { engine, runner, outcomes } = await served(100);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrderByCode different']);
    const nices = threadNices();
    expect(nices).toContain(19);
    expect(os.getPriority()).toBe(liveBefore);
  });

  it('stops the thread when a reload leaves no candidate', async () => {
    const { engine, runner, outcomes } = await served(100);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } }));
    await runner.idle();
    expect(threadNices()).toContain(19);
    runner.replace([]);
    // The thread stops once its runs are back: a few turns of the event loop, bounded here.
    for (let wait = 0; wait < 100 && threadNices().includes(19); wait++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(threadNices()).not.toContain(19);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-2' } }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrderByCode different']);
  });

  it('runs even when the live requests never pause, once a run has waited a second for a pause', async () => {
    // Requests waiting on a slow ERP use no CPU and may never all end at once.
    const { engine, runner, outcomes } = await served(100, undefined, { inFlight: 1, idle: () => new Promise<void>(() => undefined) });
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrderByCode different']);
  });

  it('keeps no secret of either version in the journal: the differences are masked with each version\'s secrets', async () => {
    // An ERP that answers the live version's password as the order number, which both versions put in
    // their answer; the candidate has a password of its own, which the live version does not know.
    const server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ no: 'pa55-word-X' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const env = { ERP_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, ERP_PASSWORD: 'pa55-word-X', ERP_PASSWORD_NEW: 'n3w-pa55-Y' };
    const withAuth = (number: string, password: string) => mapping(number).replace('  baseUrl: ${ERP_URL}\n', `  baseUrl: \${ERP_URL}\n  auth:\n    type: basic\n    username: shadow\n    password: \${${password}}\n`);
    const engine = createEngine({ mappings: [mappingFromText(withAuth('calls.order.body.no', 'ERP_PASSWORD'), env)], journal: createJournal({ size: 100 }) });
    closers.push(() => engine.close());
    const { meter, outcomes } = counted();
    const runner = createShadowRunner({ journal: engine.journal, meter, log: silentLogger, maxCpuShare: 1, thread: threadOf(env), live: NO_LIVE_REQUESTS });
    closers.push(() => runner.close());
    runner.replace([candidate(withAuth('calls.order.body.no & "-B"', 'ERP_PASSWORD_NEW'), env)]);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrderByCode different']);
    const [kept] = await engine.journal.list({ mapping: 'acme~shadow' });
    const entry = await engine.journal.get(kept.id);
    expect(entry?.shadow?.differences).toEqual([{ path: '$.data.number', old: '***', new: '***-B' }]);
    expect(JSON.stringify(entry)).not.toMatch(/pa55-word-X|n3w-pa55-Y/);
  });

  it('counts a read it cannot replay as failed when the journal keeps no trace of the ERP answers', async () => {
    const { engine, runner, outcomes } = await served(0);
    runner.answered(await engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } }));
    await runner.idle();
    expect(outcomes).toEqual(['GetWorkOrderByCode failed']);
  });
});
