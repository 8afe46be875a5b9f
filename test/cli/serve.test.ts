import fs from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE, runCli, startRecordingErp, startServe, STACK_LINE, tempDir, writeFile, stoppedAfterEach } from './cli-process';

const { running, cleanups } = stoppedAfterEach(afterEach);

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

describe('adapter-engine serve', () => {
  it('serves one mapping at the root and exits 0 on SIGTERM', async () => {
    const erp = await startRecordingErp({ articleNo: 'A-100', baseUnit: 'PCE' });
    cleanups.push(erp.close);
    const serving = await startServe(['mappings/example.yaml'], { ERP_URL: erp.url });
    running.push(serving);
    const answer = await get(`${serving.urls[0]}/Items/A-100`);
    expect(answer).toMatchObject({ status: 200, body: { isResultSuccess: true, result: 1, data: { number: 'A-100' } } });
    serving.child.kill('SIGTERM');
    expect((await serving.exited).code).toBe(0);
  });

  it('serves several mappings, each under /<mapping name>', async () => {
    const erp = await startRecordingErp({ articleNo: 'A-100' });
    cleanups.push(erp.close);
    const second = writeFile(tempDir(), 'second.yaml', fs.readFileSync(EXAMPLE, 'utf8').replace('name: example', 'name: second'));
    const serving = await startServe(['mappings/example.yaml', second], { ERP_URL: erp.url }, 2);
    running.push(serving);
    expect(serving.urls.map((url) => new URL(url).pathname)).toEqual(['/example', '/second']);
    expect((await get(`${serving.urls[1]}/WorkOrders/WorkOrderExternalIndexableValueLabel`)).body).toMatchObject({ result: 2, data: { label: 'ERP order id' } });
    const unknown = await get(`${new URL(serving.urls[0]).origin}/third/WorkOrders`);
    expect(unknown.status).toBe(404);
  });

  it('starts the bundled example ERP with --example-erp when ERP_URL is not set', async () => {
    const serving = await startServe(['--example-erp', 'mappings/example.yaml']);
    running.push(serving);
    const answer = await get(`${serving.urls[0]}/WorkOrders/Code?Code=SO-1001&StorageName=WH-MAIN`);
    expect(answer.body).toMatchObject({ isResultSuccess: true, data: { number: 'SO-1001' } });
  });

  it('refuses a mapping with errors: file:line:col, exit 1, no stack trace', async () => {
    const result = await runCli(['serve', '--port', '0', 'mappings/example.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/mappings\/example\.yaml:\d+:\d+ {2}environment variable ERP_URL is not set/);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it('the same file twice is a usage error; two files with one mapping name do not start', async () => {
    const twice = await runCli(['serve', '--port', '0', 'mappings/example.yaml', 'mappings/example.yaml'], { env: { ERP_URL: 'http://erp.test' } });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('the mapping file mappings/example.yaml is given twice');
    const copy = writeFile(tempDir(), 'copy.yaml', fs.readFileSync(EXAMPLE, 'utf8'));
    const named = await runCli(['serve', '--port', '0', 'mappings/example.yaml', copy], { env: { ERP_URL: 'http://erp.test' } });
    expect(named.code).toBe(1);
    expect(named.stderr).toMatch(/copy\.yaml {2}the mapping name "example" is already served from mappings\/example\.yaml/);
  });

  it('a port in use is a usage error, not a crash', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const { port } = blocker.address() as net.AddressInfo;
    const result = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), 'mappings/example.yaml'], { env: { ERP_URL: 'http://erp.test' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`port ${port} is already in use`);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it('a port in use by --example-erp\'s stand-ins is a usage error that names the variable to change', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const { port } = blocker.address() as net.AddressInfo;
    for (const [variable, what] of [['PLATFORM_PORT', 'the platform stand-in'], ['ERP_PORT', 'the example ERP']]) {
      const result = await runCli(['serve', '--example-erp', '--port', '0', 'mappings/example.yaml'], { env: { [variable]: String(port) } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${what} cannot listen on port ${port}: it is already in use. Set ${variable} to a free port (0 picks one)`);
      expect(result.stderr).not.toContain('This is a bug in adapter-engine');
      expect(result.stderr).not.toMatch(STACK_LINE);
    }
  });
});
