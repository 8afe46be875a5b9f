import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { ADMIN_AUTH, startServe, startSwitchableReceiver, tempDir, stoppedAfterEach } from './cli-process';

/**
 * `serve --workers 2` reports what one server does, not the sum of what each worker sees: the workers
 * share one outbox, so its gauges are the store's figures once; a mapping's last load is ok only when it
 * is ok in every worker; the primary counts the workers it has now.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

const PLACEMENT = { itemNumber: 'A-100', completedAmount: 1, confirmedLocationName: 'PW-1', userEmail: 'op@example.com' };

/** The value of one sample line (`name{labels} value`) of a Prometheus text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('serve --workers: metrics and readiness of the server as a whole', () => {
  it('outbox gauges are not doubled, reload state is not summed, a replaced worker is counted, readiness shows the outbox', { timeout: 90_000 }, async () => {
    // The ERP is down: the events stay pending in the shared store.
    const erp = await startSwitchableReceiver(cleanups);
    const serving = await startServe(['--workers', '2', '--admin-port', '0', '--state-dir', tempDir(), 'mappings/example.yaml'], { ERP_URL: erp.url });
    running.push(serving);
    onTestFailed(() => console.error(`serve --workers said:\n${serving.output().stdout}\n${serving.output().stderr}`));
    const admin = serving.adminUrl as string;
    const ready = async () => (await (await fetch(`${admin}/health/ready`, { headers: ADMIN_AUTH })).json()) as { workers?: { pid: number }[]; outbox?: { pending?: number } };
    for (let attempt = 0; attempt < 100 && (await ready()).workers?.length !== 2; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    // Separate connections, so both workers take some of the events.
    for (let index = 1; index <= 6; index += 1) {
      const response = await fetch(`${serving.urls[0]}/WorkOrders/ForPutWall`, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ ...PLACEMENT, workOrderNumber: `SO-${index}` }) });
      expect(await response.json()).toMatchObject({ isResultSuccess: true });
    }
    const text = await (await fetch(`${admin}/metrics`, { headers: ADMIN_AUTH })).text();
    expect(sample(text, 'adapter_outbox_pending{kind="event"}')).toBe(6);
    const oldest = sample(text, 'adapter_outbox_oldest_pending_seconds{kind="event"}') as number;
    expect(oldest).toBeLessThan(30);
    expect(sample(text, 'adapter_mapping_last_reload_ok{mapping="example"}')).toBe(1);
    // Loads after start only: none yet.
    expect(sample(text, 'adapter_mapping_reloads_total{mapping="example",outcome="ok"}') ?? 0).toBe(0);
    expect((await ready()).outbox).toMatchObject({ pending: 6 });

    const [victim] = (await ready()).workers ?? [];
    process.kill(victim.pid, 'SIGKILL');
    let workers: { pid: number }[] = [];
    for (let attempt = 0; attempt < 200; attempt += 1) {
      workers = (await ready()).workers ?? [];
      if (workers.length === 2 && !workers.some((worker) => worker.pid === victim.pid)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(workers.map((worker) => worker.pid)).not.toContain(victim.pid);
    const after = await (await fetch(`${admin}/metrics`, { headers: ADMIN_AUTH })).text();
    expect(sample(after, 'adapter_workers')).toBe(2);
    expect(sample(after, 'adapter_worker_restarts_total')).toBe(1);
  });
});
