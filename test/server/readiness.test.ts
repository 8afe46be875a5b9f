import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/core/engine';
import { createMappingSource } from '../../engine/server/mapping-source';
import { readiness } from '../../engine/server/readiness';
import { startRecordingErp, tempDir, writeFile } from '../cli/cli-process';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function mapping(name: string, baseUrl: string, extraSystem = '', inbound = ''): string {
  return `version: 1
name: ${name}
system:
  baseUrl: ${baseUrl}
${extraSystem.replace(/^/gm, '  ')}
${inbound}operations:
  GetExternalIndexableValueLabel:
    static: { label: x }
`;
}

describe('readiness', () => {
  it('asks an ERP that declares system.healthCheck, and is not ready while it does not answer', async () => {
    const erp = await startRecordingErp({ status: 'up' });
    cleanups.push(erp.close);
    const dir = tempDir();
    writeFile(dir, 'up.yaml', mapping('up', erp.url, 'healthCheck:\n  path: /health'));
    writeFile(dir, 'down.yaml', mapping('down', 'http://127.0.0.1:9', 'healthCheck:\n  path: /health\n  timeoutMs: 500'));
    const source = createMappingSource([dir], {});
    const engine = createEngine({ mappings: (await source.load()).mappings, prefixed: true });
    cleanups.push(() => engine.close());
    const result = await readiness(engine, source.states(), '127.0.0.1');
    expect(result.ready).toBe(false);
    const byName = Object.fromEntries(result.mappings.map((entry) => [entry.mapping, entry]));
    expect(byName.up.erp).toMatchObject({ reachable: true, status: 200 });
    expect(byName.down.erp).toMatchObject({ reachable: false, error: expect.stringContaining('connection refused') });
    expect(erp.received.map((request) => request.url)).toEqual(['/api/v1/health']);
    // Asked again within a few seconds: the kept answer, not another request to the ERP.
    await readiness(engine, source.states(), '127.0.0.1');
    expect(erp.received).toHaveLength(1);
  });

  it('warns about a mapping without inbound auth on an address other than loopback', async () => {
    const dir = tempDir();
    writeFile(dir, 'open.yaml', mapping('open', 'http://127.0.0.1:9'));
    writeFile(dir, 'closed.yaml', mapping('closed', 'http://127.0.0.1:9', '', 'inbound:\n  auth:\n    type: apiKey\n    keys: ["${KEY}"]\n'));
    const source = createMappingSource([dir], { KEY: 'k' });
    const engine = createEngine({ mappings: (await source.load()).mappings, prefixed: true });
    cleanups.push(() => engine.close());
    for (const [host, warned] of [['0.0.0.0', true], [undefined, true], ['127.0.0.1', false], ['localhost', false]] as const) {
      const result = await readiness(engine, source.states(), host);
      expect(result.ready).toBe(true);
      const open = result.mappings.find((entry) => entry.mapping === 'open')!;
      expect(open.warnings.length > 0, String(host)).toBe(warned);
      expect(result.mappings.find((entry) => entry.mapping === 'closed')).toMatchObject({ inboundAuth: 'apiKey', warnings: [] });
    }
  });
});

describe('the mapping source of serve DIR', () => {
  it('a file that takes a name another file serves is refused, and the first keeps serving', async () => {
    const dir = tempDir();
    writeFile(dir, 'a.yaml', mapping('same', 'http://127.0.0.1:9'));
    const source = createMappingSource([dir], {});
    expect((await source.load()).mappings.map((m) => m.name)).toEqual(['same']);
    writeFile(dir, '0-copy.yaml', mapping('same', 'http://127.0.0.1:9'));
    const report = await source.load();
    expect(report.mappings.map((m) => path.basename(m.file))).toEqual(['a.yaml']);
    const refused = report.attempts.find((state) => state.file.endsWith('0-copy.yaml'))!;
    expect(refused.last).toMatchObject({ ok: false, problems: [expect.stringContaining('the mapping name "same" is already served from')] });
  });

  it('reads only changed files, forced or not, and forgets removed ones', async () => {
    const dir = tempDir();
    writeFile(dir, 'a.yaml', mapping('a', 'http://127.0.0.1:9'));
    writeFile(dir, 'b.yml', mapping('b', 'http://127.0.0.1:9'));
    writeFile(dir, 'notes.txt', 'not a mapping');
    const source = createMappingSource([dir], {});
    expect((await source.load()).attempts).toHaveLength(2);
    expect((await source.load()).attempts).toHaveLength(0);
    // SIGHUP with 200 files compiled all 200 for one change (issue 28).
    expect((await source.load({ force: true })).attempts).toHaveLength(0);
    writeFile(dir, 'a.yaml', mapping('a', 'http://127.0.0.1:10'));
    expect((await source.load({ force: true })).attempts.map((state) => state.mapping?.system.baseUrl.port)).toEqual(['10']);
    fs.rmSync(path.join(dir, 'b.yml'));
    const report = await source.load();
    expect(report.removed.map((file) => path.basename(file))).toEqual(['b.yml']);
    expect(report.mappings.map((m) => m.name)).toEqual(['a']);
  });

  it('a changed TLS file reloads the mapping that names it; forced, a file that did not load is tried again', async () => {
    const dir = tempDir();
    const ca = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'tls', 'ca.pem'), 'utf8');
    writeFile(dir, 'ca.pem', ca);
    writeFile(dir, 'a.yaml', mapping('a', 'https://127.0.0.1:9', 'tls: { caFile: ca.pem }'));
    writeFile(dir, 'b.yaml', mapping('b', 'http://127.0.0.1:9').replace('static:', 'statik:'));
    const source = createMappingSource([dir], {});
    expect((await source.load()).attempts.map((state) => state.last.ok)).toEqual([true, false]);
    expect((await source.load()).attempts).toHaveLength(0);
    writeFile(dir, 'ca.pem', `${ca}\n`);
    expect((await source.load()).attempts.map((state) => path.basename(state.file))).toEqual(['a.yaml']);
    expect((await source.load({ force: true })).attempts.map((state) => [path.basename(state.file), state.last.ok])).toEqual([['b.yaml', false]]);
  });

  it('a directory and files together are refused', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'a.yaml', mapping('a', 'http://127.0.0.1:9'));
    expect(() => createMappingSource([dir, file], {})).toThrow(/either one directory or mapping files/);
  });
});
