import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, eventually, runCli, startServe, startupLines, stoppedAfterEach, tempDir, writeFile } from '../cli/cli-process';
import { describeWithPostgres } from '../support/postgres';
import { ORDERS_TESTS, ordersMapping, seriesValue, startOrdersErp } from './stand-in-erp';

/**
 * ERP drift on the real binary with the state in PostgreSQL (DATABASE_URL): two replicas keep what they
 * saw in one row of the shared database, not in a drift.json each; `adapter-engine test` given the same
 * DATABASE_URL warns of it from any directory; a database that cannot be reached costs the request
 * nothing but a log line.
 */
const { running, cleanups } = stoppedAfterEach(afterEach);

const WARNING = /warning: the recorded answers of call order are older than what the ERP answered live on (\S+) \(missing at \$\.qty: recorded present, live missing\)/;

/** The folder served: the mapping and its tests (whose recorded answers teach the shape), written a minute ago so the drift seen now is newer. */
function servedFolder(): { dir: string; testFile: string } {
  const dir = tempDir();
  writeFile(dir, 'acme.yaml', ordersMapping());
  const testFile = writeFile(dir, 'acme.test.yaml', ORDERS_TESTS);
  const before = new Date(Date.now() - 60_000);
  fs.utimesSync(testFile, before, before);
  return { dir, testFile };
}

async function rowsOf(url: string): Promise<{ first_seen: Date; last_seen: Date }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ first_seen: Date; last_seen: Date }>(`SELECT first_seen, last_seen FROM adapter_drift_seen WHERE mapping = 'acme' AND call = 'order' AND kind = 'missing'`)).rows;
  } finally {
    await client.end();
  }
}

async function order(base: string, code: string): Promise<boolean> {
  return ((await (await fetch(`${base}/WorkOrders/Code?Code=${code}`)).json()) as { isResultSuccess: boolean }).isResultSuccess;
}

/** A TCP relay to the database that can be cut: afterwards every connection to it is refused, as to a database that went away. */
async function cuttableRelay(url: string): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((socket) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const one of [socket, upstream]) {
      sockets.add(one);
      one.on('error', () => { socket.destroy(); upstream.destroy(); });
      one.on('close', () => { socket.destroy(); upstream.destroy(); });
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(url);
  relayed.port = String((relay.address() as net.AddressInfo).port);
  return {
    url: relayed.toString(),
    cut: () => new Promise<void>((resolve) => {
      relay.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }),
  };
}

describeWithPostgres('ERP drift kept in PostgreSQL', (server) => {
  it('is kept in one row by two replicas on one database, and test warns of it from elsewhere', async () => {
    const erp = await startOrdersErp({ dropAfter: 0 });
    cleanups.push(() => erp.close());
    const { dir, testFile } = servedFolder();
    const stateDirs = [path.join(dir, 'state-a'), path.join(dir, 'state-b')];
    const replicas = [];
    for (const stateDir of stateDirs) replicas.push(await startServe([dir], { ERP_URL: erp.url, LOG_LEVEL: 'warn', DATABASE_URL: server().url, ADAPTER_STATE_DIR: stateDir }));
    running.push(...replicas);

    expect(await order(replicas[0].urls[0], 'SO-1')).toBe(true);
    await expect.poll(() => rowsOf(server().url), { timeout: 10_000, interval: 100 }).toHaveLength(1);
    const [first] = await rowsOf(server().url);
    expect(await order(replicas[1].urls[0], 'SO-2')).toBe(true);
    // The other replica's sighting (its own first of the hour) refreshes the row and keeps its first time.
    await expect.poll(async () => (await rowsOf(server().url))[0].last_seen.getTime(), { timeout: 10_000, interval: 100 }).toBeGreaterThan(first.last_seen.getTime());
    const [refreshed] = await rowsOf(server().url);
    expect(refreshed.first_seen).toEqual(first.first_seen);
    for (const stateDir of stateDirs) expect(fs.existsSync(path.join(stateDir, 'drift.json'))).toBe(false);

    // Run with a state directory of its own (cliEnv gives each run one): only the database holds the drift.
    const tested = await runCli(['test', testFile], { env: { ERP_URL: erp.url, DATABASE_URL: server().url } });
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(WARNING.exec(tested.stdout)?.[1]).toBe(refreshed.last_seen.toISOString());
    const withoutDatabase = await runCli(['test', testFile], { env: { ERP_URL: erp.url } });
    expect(withoutDatabase.stdout).not.toMatch(WARNING);
  }, 120_000);

  it('does not fail the request that saw the drift when the database cannot be reached', async () => {
    const erp = await startOrdersErp({ dropAfter: 0 });
    cleanups.push(() => erp.close());
    const relay = await cuttableRelay(server().url);
    cleanups.push(() => relay.cut());
    const { dir } = servedFolder();
    const serving = await startServe(['--admin-port', '0', dir], { ERP_URL: erp.url, LOG_LEVEL: 'warn', DATABASE_URL: relay.url });
    running.push(serving);
    await relay.cut();

    expect(await order(serving.urls[0], 'SO-1')).toBe(true);
    await eventually(() => startupLines(serving.output().stdout).some((line) => line.msg.startsWith('the ERP drift seen could not be kept')), 'the failed keep is logged');
    const kept = startupLines(serving.output().stdout).find((line) => line.msg.startsWith('the ERP drift seen could not be kept'));
    expect(kept?.store).toBe('PostgreSQL "public".adapter_drift_seen');
    expect(await order(serving.urls[0], 'SO-2')).toBe(true);
    const metrics = await (await fetch(`${serving.adminUrl as string}/metrics`, { headers: ADMIN_AUTH })).text();
    expect(seriesValue(metrics, 'adapter_erp_drift_total{mapping="acme",call="order",kind="missing"}')).toBe(2);
  }, 120_000);
});

describe('adapter-engine test with a DATABASE_URL it cannot reach', () => {
  it('says it could not read the drift seen live and runs the tests as usual', async () => {
    const { testFile } = servedFolder();
    // Port 1 of 127.0.0.1: nothing listens there, the connection is refused at once.
    const tested = await runCli(['test', testFile], { env: { ERP_URL: 'http://127.0.0.1:1/api/v1', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/adapter' } });
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stderr).toMatch(/^warning: the ERP drift seen live could not be read \(.*ECONNREFUSED.*\); no test is checked against it$/m);
    expect(tested.stdout).toMatch(/1 passed, 0 failed/);
  }, 60_000);

  it('gives up on a database that accepts the connection and never answers', async () => {
    const { testFile } = servedFolder();
    // A silent server on 127.0.0.1: the connection opens, the database's greeting never comes.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const tested = await runCli(['test', testFile], { env: { ERP_URL: 'http://127.0.0.1:1/api/v1', DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/adapter` } });
      expect(tested.code, tested.stdout + tested.stderr).toBe(0);
      expect(tested.stderr).toMatch(/^warning: the ERP drift seen live could not be read \(.*timeout.*\); no test is checked against it$/m);
      expect(tested.stdout).toMatch(/1 passed, 0 failed/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});
