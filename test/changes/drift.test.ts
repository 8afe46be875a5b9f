import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, runCli, startServe, stoppedAfterEach, tempDir, writeFile } from '../cli/cli-process';
import { ORDERS_TESTS, ordersMapping, seriesValue, startOrdersErp } from './stand-in-erp';

/**
 * ERP drift on the real binary: the served folder holds the mapping and its tests, whose recorded
 * answers teach the shape of the ERP's answers. A stand-in ERP that drops a field after 3 answers
 * raises adapter_erp_drift_total and marks the journal entries while every answer stays Succeed; the
 * log says so once; `adapter-engine test` then warns that the recordings are older than the live shape.
 */
const { running, cleanups } = stoppedAfterEach(afterEach);

describe('ERP drift', () => {
  it('is counted, logged once and marked in the journal while the answers stay Succeed, and test warns of it', async () => {
    const erp = await startOrdersErp({ dropAfter: 3 });
    cleanups.push(() => erp.close());
    const dir = tempDir();
    const stateDir = path.join(dir, 'state');
    writeFile(dir, 'acme.yaml', ordersMapping());
    const testFile = writeFile(dir, 'acme.test.yaml', ORDERS_TESTS);
    const serving = await startServe(['--admin-port', '0', dir], { ERP_URL: erp.url, LOG_LEVEL: 'warn', ADAPTER_STATE_DIR: stateDir });
    running.push(serving);
    const admin = serving.adminUrl as string;

    const results: string[] = [];
    for (let index = 1; index <= 6; index += 1) {
      const envelope = await (await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=SO-${index}`)).json() as { result: number; isResultSuccess: boolean };
      results.push(envelope.isResultSuccess ? 'Succeed' : String(envelope.result));
    }
    expect(results).toEqual(Array(6).fill('Succeed'));
    const metrics = await (await fetch(`${admin}/metrics`, { headers: ADMIN_AUTH })).text();
    expect(seriesValue(metrics, 'adapter_erp_drift_total{mapping="acme",call="order",kind="missing"}')).toBe(3);

    const listed = await runCli(['requests', '--admin', admin, '--json', '--contains', 'SO-6']);
    const [latest] = JSON.parse(listed.stdout) as { id: string }[];
    const shown = await runCli(['requests', 'show', latest.id, '--admin', admin, '--json']);
    expect((JSON.parse(shown.stdout) as { drift?: unknown }).drift).toEqual([{ call: 'order', kind: 'missing', path: '$.qty', expected: 'present', got: 'missing' }]);
    const early = await runCli(['requests', '--admin', admin, '--json', '--contains', 'SO-1']);
    const [first] = JSON.parse(early.stdout) as { id: string }[];
    expect((JSON.parse((await runCli(['requests', 'show', first.id, '--admin', admin, '--json'])).stdout) as { drift?: unknown }).drift).toBeUndefined();
    // Logged once for the three answers, kept with its date for `test`.
    expect(serving.output().stdout.match(/departs from its recorded answers/g)).toHaveLength(1);
    expect(fs.existsSync(path.join(stateDir, 'drift.json'))).toBe(true);

    const tested = await runCli(['test', testFile], { env: { ERP_URL: erp.url, ADAPTER_STATE_DIR: stateDir } });
    expect(tested.code, tested.stdout).toBe(0);
    expect(tested.stdout).toMatch(/warning: the recorded answers of call order are older than what the ERP answered live on \S+ \(missing at \$\.qty: recorded present, live missing\); refresh them with adapter-engine record/);
    // Recorded again (a newer file), the warning is gone.
    fs.utimesSync(testFile, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    const refreshed = await runCli(['test', testFile], { env: { ERP_URL: erp.url, ADAPTER_STATE_DIR: stateDir } });
    expect(refreshed.stdout).not.toContain('warning: the recorded answers');
  }, 120_000);

  it('is not counted for a missing field the mapping does not read, even where its file names it', async () => {
    const erp = await startOrdersErp({ dropAfter: 1 });
    cleanups.push(() => erp.close());
    const dir = tempDir();
    // The comment names qty; no expression reads it (the amount is fixed).
    const unread = ordersMapping().replace('calls.order.body.qty ? calls.order.body.qty : 0', '1').replace('version: 1\n', 'version: 1\n# The ERP sends qty too; the platform is told 1.\n');
    writeFile(dir, 'acme.yaml', unread);
    writeFile(dir, 'acme.test.yaml', ORDERS_TESTS);
    const serving = await startServe(['--admin-port', '0', dir], { ERP_URL: erp.url, ADAPTER_STATE_DIR: path.join(dir, 'state') });
    running.push(serving);
    for (let index = 1; index <= 3; index += 1) await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=SO-${index}`);
    const metrics = await (await fetch(`${serving.adminUrl as string}/metrics`, { headers: ADMIN_AUTH })).text();
    expect(erp.count()).toBe(3);
    expect(metrics).not.toContain('adapter_erp_drift_total{');
  }, 120_000);
});
