import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../engine/errors';
import { checkMappingText } from '../../engine/mapping/load';
import { closeAfterEach, head, type RunningEngine, startEngine, type StartOptions } from '../support/engine';
import { json, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'tls');
const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const LABEL = '/WorkOrders/WorkOrderExternalIndexableValueLabel';
const SUCCESS = { isResultSuccess: true, result: 2, validationStatus: null, externalMessage: null, data: { label: 'ERP id' } };

const labelOperation = `  GetExternalIndexableValueLabel:
    calls:
      - name: label
        method: GET
        path: /label
    output: '{ "label": calls.label.body.text }'
`;

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

async function httpsErp(options: { selfSigned?: boolean; requestCert?: boolean } = {}): Promise<MisbehavingErp> {
  const server = options.selfSigned ? { key: read('self-signed.key'), cert: read('self-signed.pem') } : { key: read('server.key'), cert: read('server.pem') };
  const started = await startMisbehavingErp({ tls: { ...server, ca: read('ca.pem'), requestCert: options.requestCert } });
  started.on('GET /label', () => json({ text: 'ERP id' }));
  return started;
}

// The mapping sits in the fixtures folder, so the TLS file paths are relative to it.
const start = (url: string, tls: string, options: StartOptions = {}) => startEngine(head(url, tls) + labelOperation, { baseDir: FIXTURES, ...options });

describe('TLS toward the ERP', () => {
  it('refuses an ERP certificate from an unknown CA', async () => {
    erp = await httpsErp();
    engine = await start(erp.url, '');
    const envelope = await engine.call('GET', LABEL);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1 }); // AdapterApiClientFailed
    expect(JSON.stringify(envelope.validationStatus)).toContain('TLS failure');
    expect(erp.count()).toBe(0);
  });

  it('trusts an ERP certificate signed by the caFile bundle', async () => {
    erp = await httpsErp();
    engine = await start(erp.url, 'tls: { caFile: ca.pem }');
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count()).toBe(1);
  });

  it('presents a client certificate for mutual TLS', async () => {
    erp = await httpsErp({ requestCert: true });
    engine = await start(erp.url, 'tls: { caFile: ca.pem }');
    expect(await engine.call('GET', LABEL)).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(erp.count()).toBe(0);
    await engine.close();
    engine = await start(erp.url, 'tls: { caFile: ca.pem, certFile: client.pem, keyFile: client.key }');
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count()).toBe(1);
  });

  it('skips certificate checks only with insecureSkipVerify: true, warning at load and at start', async () => {
    erp = await httpsErp({ selfSigned: true });
    const text = head(erp.url, 'tls: { insecureSkipVerify: true }') + labelOperation;
    const warnings = checkMappingText(text, 'test.yaml', {}).issues.filter((i) => i.code === 'TLS_VERIFY_OFF');
    expect(warnings.map(formatIssue)).toEqual([expect.stringMatching(/^test\.yaml:6:30 {2}warning: system\.tls\.insecureSkipVerify is true: the ERP certificate is NOT checked/)]);
    const lines: Record<string, unknown>[] = [];
    const log = pino(new Writable({ write(chunk, _enc, next) { lines.push(JSON.parse(String(chunk))); next(); } }));
    engine = await start(erp.url, 'tls: { insecureSkipVerify: true }', { log });
    expect(lines.filter((l) => l.level === 40 && String(l.msg).includes('certificate checking toward the ERP is OFF'))).toHaveLength(1);
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count()).toBe(1);
  });

  it('reports unreadable TLS files and a certificate without its key at load', () => {
    const missing = checkMappingText(head('https://erp.local', 'tls: { caFile: nope.pem }') + labelOperation, 'test.yaml', {}, FIXTURES);
    expect(missing.issues.filter((i) => i.severity === 'error').map(formatIssue)).toEqual([
      'test.yaml:6:18  system.tls.caFile "nope.pem" cannot be read (ENOENT); paths are relative to the mapping file',
    ]);
    const halfPair = checkMappingText(head('https://erp.local', 'tls: { certFile: client.pem }') + labelOperation, 'test.yaml', {}, FIXTURES);
    expect(halfPair.issues.filter((i) => i.severity === 'error').map(formatIssue)).toEqual([
      'test.yaml:6:8  system.tls needs both certFile and keyFile for a client certificate; "keyFile" is missing',
    ]);
  });
});
