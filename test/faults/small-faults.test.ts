/**
 * Issue 18, item 8 (the parts taken here): `npx adapter-engine` failed after a fresh clone because the
 * built bin file was not executable; `Code=..&code=..` was resolved silently; the example mapping's
 * ReportWorkOrderStatus failed a valid `{}` (its body expression required a status).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErp, type RunningErp } from '../../examples/erp';
import { PROJECT_ROOT } from '../../engine/paths';
import { loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';

const BIN = path.join(PROJECT_ROOT, 'dist', 'engine', 'cli', 'main.js');

describe('the bin file is executable after a build (issue 18, item 8)', () => {
  it('npm runs a postbuild step that sets the mode tsc leaves at 0644', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };
    expect(path.join(PROJECT_ROOT, manifest.bin['adapter-engine'])).toBe(BIN);
    expect(manifest.scripts.postbuild).toBeDefined();
    fs.chmodSync(BIN, 0o644); // as tsc writes it on a fresh clone
    try {
      execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'postbuild'], { cwd: PROJECT_ROOT, stdio: 'pipe' });
    } finally {
      if ((fs.statSync(BIN).mode & 0o111) === 0) fs.chmodSync(BIN, 0o755); // leave dist usable for other tests
    }
    expect(fs.statSync(BIN).mode & 0o111).not.toBe(0);
    expect(execFileSync(BIN, ['--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('requests the example mapping answers (issue 18, item 8)', () => {
  let erp: RunningErp;
  let engine: RunningEngine;
  beforeAll(async () => {
    erp = await startErp({ port: 0 });
    engine = await startEngine(loadExampleMapping(erp.url));
  });
  afterAll(async () => {
    await engine.close();
    await erp.close();
  });

  it('Code=..&code=.. is InvalidInput naming the duplicate, and calls nothing', async () => {
    const envelope = await engine.call('GET', '/WorkOrders/Code?Code=SO-1001&code=SO-1002');
    expect(envelope).toMatchObject({ isResultSuccess: false, data: null });
    expect(envelope.validationStatus).toEqual([{ path: 'query/Code', message: 'is given more than once (Code, code); send it once' }]);
    // One spelling, whatever its case, still works.
    expect(await engine.call('GET', '/WorkOrders/Code?code=SO-1001')).toMatchObject({ isResultSuccess: true });
  });

  it('ReportWorkOrderStatus delivers a valid {} (and a null status), and still names a given status', async () => {
    for (const body of [{}, { number: 'SO-1001', status: null }]) {
      const answer = await engine.engine.handle({ method: 'POST', path: '/WorkOrders/Status', body });
      expect(answer.envelope).toMatchObject({ isResultSuccess: true });
      expect(answer.delivery, JSON.stringify(body)).toEqual({ verdict: 'delivered', message: undefined });
    }
    const answer = await engine.engine.handle({ method: 'POST', path: '/WorkOrders/Status', body: { number: 'SO-1001', status: 1 } });
    expect(answer.delivery?.verdict).toBe('delivered');
    const events = (await (await fetch(`${erp.url}/events?type=order-status`)).json()) as { events: { body: unknown }[] };
    expect(events.events.map((event) => event.body)).toEqual([{ status: null }, { docNo: 'SO-1001', status: null }, { docNo: 'SO-1001', status: expect.any(String) }]);
  });
});
