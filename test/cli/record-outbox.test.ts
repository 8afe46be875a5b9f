import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE, runCli, tempDir } from './cli-process';

/**
 * `record` of a delivery: outbox operation keeps what the delivery did (expect.delivery), so a case
 * recorded while the ERP refused every event fails when the mapping starts to "succeed" at it; and a run
 * that failed before the ERP answered anything is not saved as a case.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0)) await cleanup(); });

/** A stand-in ERP answering every request with `status` and a small JSON body. */
async function erpAnswering(status: number): Promise<{ url: string; received: () => number }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(status, { 'content-type': 'application/json' }).end(status < 400 ? '{"placed":true}' : '{"message":"work order is closed"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, received: () => received };
}

const PLACEMENT = JSON.stringify({ workOrderNumber: 'SO-1001', itemNumber: 'A-100', completedAmount: 2, confirmedLocationName: 'PW-1', userEmail: 'op@example.com' });

describe('adapter-engine record of a delivery: outbox operation', () => {
  it('writes expect.delivery (dead while the ERP refuses), and the case fails once the answer would be delivered', async () => {
    const erp = await erpAnswering(422);
    const testFile = path.join(tempDir(), 'placements.test.yaml');
    const recorded = await runCli(['record', EXAMPLE, 'ConfirmPutWallPlacement', '--input', PLACEMENT, '--out', testFile, '--name', 'refused placement'], { env: { ERP_URL: erp.url } });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toContain('result Succeed, delivery dead');
    const written = fs.readFileSync(testFile, 'utf8');
    expect(written).toMatch(/^ {6}delivery: dead$/m);
    expect(written).toMatch(/status: 422/);
    const replayed = await runCli(['test', testFile], { env: { ERP_URL: erp.url } });
    expect(replayed.code, replayed.stdout).toBe(0);
    // The same case against an ERP answer that is taken: the delivery no longer matches what was recorded.
    fs.writeFileSync(testFile, written.replace('status: 422', 'status: 200'));
    const changed = await runCli(['test', testFile], { env: { ERP_URL: erp.url } });
    expect(changed.code).toBe(1);
    expect(changed.stdout, changed.stdout).toMatch(/delivery\n\s+- expected {2}"dead"\n\s+\+ actual {4}"delivered"/);
  }, 60_000);

  it('writes delivery: delivered when the ERP takes the event', async () => {
    const erp = await erpAnswering(200);
    const testFile = path.join(tempDir(), 'placements.test.yaml');
    const recorded = await runCli(['record', EXAMPLE, 'ConfirmPutWallPlacement', '--input', PLACEMENT, '--out', testFile], { env: { ERP_URL: erp.url } });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(fs.readFileSync(testFile, 'utf8')).toMatch(/^ {6}delivery: delivered$/m);
    expect(erp.received()).toBe(1);
  }, 60_000);

  it('saves no case when the run failed before the ERP answered anything', async () => {
    const erp = await erpAnswering(200);
    const testFile = path.join(tempDir(), 'placements.test.yaml');
    const recorded = await runCli(['record', EXAMPLE, 'ConfirmPutWallPlacement', '--input', '{"workOrderNumber":5}', '--out', testFile], { env: { ERP_URL: erp.url } });
    expect(recorded.code).toBe(1);
    expect(recorded.stderr).toContain('nothing recorded: the operation failed before the external system answered anything: INPUT_INVALID');
    expect(fs.existsSync(testFile)).toBe(false);
    expect(erp.received()).toBe(0);
  }, 60_000);
});
