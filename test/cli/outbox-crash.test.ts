import { afterEach, describe, expect, it } from 'vitest';
import { eventually, runCli, startServe, startSwitchableReceiver, tempDir, stoppedAfterEach } from './cli-process';

/**
 * Nothing accepted is lost: events answered Succeed reach the ERP after the engine is killed with
 * SIGKILL (no chance to clean up) and started again, each exactly once, in order per work order.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

describe('outbox across a crash', () => {
  it('events accepted before kill -9 are delivered after the restart, each once, in order per work order', async () => {
    const erp = await startSwitchableReceiver(cleanups);
    const placements = () => erp.received.map((request) => ({ ...(JSON.parse(request.body) as { docNo: string; qty: number }), key: String(request.headers['idempotency-key']) }));
    const stateDir = tempDir();
    const first = await startServe(['--state-dir', stateDir, 'mappings/example.yaml'], { ERP_URL: erp.url });
    running.push(first);
    const sent: { docNo: string; qty: number }[] = [];
    for (let index = 1; index <= 30; index += 1) {
      const docNo = `SO-${index % 3}`;
      const response = await fetch(`${first.urls[0]}/WorkOrders/ForPutWall`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workOrderNumber: docNo, itemNumber: 'A-100', completedAmount: index, confirmedLocationName: 'PW-1', userEmail: 'op@example.com' }),
      });
      expect(await response.json()).toMatchObject({ isResultSuccess: true, result: 1 });
      sent.push({ docNo, qty: index });
    }
    first.child.kill('SIGKILL');
    expect((await first.exited).code).toBeNull();

    const pending = await runCli(['outbox', 'list', '--state-dir', stateDir, '--json']);
    expect(JSON.parse(pending.stdout)).toHaveLength(30);

    erp.up();
    const second = await startServe(['--state-dir', stateDir, 'mappings/example.yaml'], { ERP_URL: erp.url });
    running.push(second);
    await eventually(() => erp.received.length >= 30, 'all 30 events delivered');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(erp.received).toHaveLength(30);
    expect(new Set(placements().map((p) => p.key)).size).toBe(30);
    for (const docNo of ['SO-0', 'SO-1', 'SO-2']) {
      expect(placements().filter((p) => p.docNo === docNo).map((p) => p.qty)).toEqual(sent.filter((s) => s.docNo === docNo).map((s) => s.qty));
    }
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 90_000);
});
