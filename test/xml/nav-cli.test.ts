/**
 * The SOAP example through the built command line: it passes validate --strict (its tests fill every
 * output field), and `record` against the NAV stand-in writes XML answers as xml:, which `test` replays
 * by the same reading rules: a readable answer gives the same envelope, a truncated one the same failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli, tempDir } from '../cli/cli-process';
import { startSoapErp, type SoapErp } from '../support/soap-erp';
import { NAV_MAPPING } from './nav-start';

let erp: SoapErp | undefined;
afterEach(async () => {
  await erp?.close();
  erp = undefined;
});

describe('examples/soap/nav.yaml on the command line', () => {
  it('passes validate --strict: 19 of 19 routes, its recorded tests fill every output field', async () => {
    const result = await runCli(['validate', '--strict', 'examples/soap/nav.yaml']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/examples\/soap\/nav\.yaml {2}ok {2}19 of 19 routes mapped/);
  });

  it('record writes an XML answer as xml:, and test replays it as the live run answered, readable or truncated', async () => {
    erp = await startSoapErp();
    const out = path.join(tempDir(), 'recorded.test.yaml');
    const record = (name: string, code: string) =>
      runCli(['record', NAV_MAPPING, 'GetWorkOrderByCode', '--input', JSON.stringify({ Code: code }), '--out', out, '--name', name, '-e', `NAV_URL=${erp!.url}`]);
    expect((await record('one order', 'SO-1003')).code).toBe(0);
    erp.switches.truncate = true;
    expect((await record('a truncated answer', 'SO-1003')).code).toBe(0);

    const cases = (parse(fs.readFileSync(out, 'utf8')) as { cases: { answers: { order: Record<string, unknown> }; expect: { result: string } }[] }).cases;
    expect(cases.map((c) => Object.keys(c.answers.order).sort())).toEqual([['headers', 'xml'], ['headers', 'xml']]);
    expect(cases[0]!.answers.order.xml).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><s:Envelope[\s\S]*<No>SO-1003<\/No>/);
    expect(cases.map((c) => c.expect.result)).toEqual(['Succeed', 'AdapterApiCallFailed']);

    const replay = await runCli(['test', out]);
    expect(replay.code, replay.stdout).toBe(0);
    expect(replay.stdout).toMatch(/^ok {2}2 passed, 0 failed/m);
  });
});
