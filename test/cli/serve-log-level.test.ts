import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE, startServe, stoppedAfterEach } from './cli-process';

/** serve --log-level overrides LOG_LEVEL; at info every request writes one log line (issue 17). */
const { running } = stoppedAfterEach(afterEach);
const ERP = { ERP_URL: 'http://127.0.0.1:9/api/v1' };

function logLines(stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('serve --log-level', () => {
  it('info (over LOG_LEVEL=silent): one line per request, with its operation, result and duration', async () => {
    const serving = await startServe(['--log-level', 'info', EXAMPLE], { ...ERP, LOG_LEVEL: 'silent' });
    running.push(serving);
    for (const code of ['SO-1', 'SO-2']) await fetch(`${serving.urls[0]}/WorkOrders/WorkOrderExternalIndexableValueLabel?x=${code}`);
    await fetch(`${serving.urls[0]}/Items/A-1`); // the ERP is down: still one request line (and its call's)
    await fetch(`${serving.urls[0]}/no/such/route`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const requests = logLines(serving.output().stdout).filter((line) => line.msg === 'request');
    expect(requests.map((line) => [line.level, line.operation, line.result])).toEqual([
      [30, 'GetExternalIndexableValueLabel', 'Success'],
      [30, 'GetExternalIndexableValueLabel', 'Success'],
      [30, 'GetItem', 'AdapterApiClientFailed'],
      [30, undefined, 'NotFound'],
    ]);
    expect(requests.every((line) => typeof line.ms === 'number' && typeof line.requestId === 'string')).toBe(true);
  });

  it('warn (over LOG_LEVEL=info): no request lines, the failure still logged', async () => {
    const serving = await startServe(['--log-level', 'warn', EXAMPLE], { ...ERP, LOG_LEVEL: 'info' });
    running.push(serving);
    await fetch(`${serving.urls[0]}/WorkOrders/WorkOrderExternalIndexableValueLabel`);
    await fetch(`${serving.urls[0]}/Items/A-1`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = logLines(serving.output().stdout);
    expect(lines.filter((line) => line.msg === 'request')).toEqual([]);
    expect(lines.some((line) => line.level === 40 && line.operation === 'GetItem')).toBe(true);
  });

  it('an unknown level is a usage error', async () => {
    await expect(startServe(['--log-level', 'verbose', EXAMPLE], ERP)).rejects.toThrow(/exited with 2[\s\S]*Allowed choices are fatal, error, warn, info, debug, trace, silent/);
  });
});
