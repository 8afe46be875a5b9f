import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { createMetrics } from '../../engine/server/metrics';
import { startRecordingErp } from '../cli/cli-process';
import { head, startEngine, type RunningEngine } from '../support/engine';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function capturedLog(): { log: pino.Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _encoding, done) { chunks.push(chunk.toString()); done(); } });
  return { log: pino({ level: 'debug' }, stream), lines: () => chunks.join('').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const ITEM = `  GetItem:
    calls:
      - name: item
        method: GET
        path: /items/{input.number}
    output: '{"number": calls.item.body.articleNo}'
`;

async function serving(inbound: string, env: Record<string, string>, extra: { log?: pino.Logger } = {}): Promise<{ engine: RunningEngine; metrics: ReturnType<typeof createMetrics>; erp: Awaited<ReturnType<typeof startRecordingErp>> }> {
  const erp = await startRecordingErp({ articleNo: 'A-1' });
  cleanups.push(erp.close);
  const metrics = createMetrics({ processMetrics: false });
  const text = head(erp.url).replace('operations:\n', `${inbound}operations:\n${ITEM}`);
  const engine = await startEngine(text, { env, meter: metrics, log: extra.log });
  cleanups.push(engine.close);
  return { engine, metrics, erp };
}

const API_KEY = `inbound:
  auth:
    type: apiKey
    keys: ["\${KEY_OLD}", "\${KEY_NEW}"]
`;
const BASIC = `inbound:
  auth:
    type: basic
    users:
      - username: platform
        password: \${PLATFORM_PASSWORD}
`;

describe('inbound auth: the platform must authenticate', () => {
  it('apiKey: no key is 401 with WWW-Authenticate and a JSON body; the request never reaches the ERP', async () => {
    const { engine, erp } = await serving(API_KEY, { KEY_OLD: 'old-secret-key', KEY_NEW: 'new-secret-key' });
    const response = await fetch(`${engine.url}/Items/A-1`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('ApiKey realm="adapter-engine/connectivity-test", header="X-Api-Key"');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.json()).toEqual({ error: 'authentication required: send the key in the X-Api-Key header' });
    expect(erp.received).toHaveLength(0);
  });

  it('apiKey: a wrong key is 401; both keys of a rotation are accepted', async () => {
    const { engine, metrics, erp } = await serving(API_KEY, { KEY_OLD: 'old-secret-key', KEY_NEW: 'new-secret-key' });
    const wrong = await fetch(`${engine.url}/Items/A-1`, { headers: { 'x-api-key': 'old-secret-kez' } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: string }).error).toMatch(/not accepted/);
    for (const key of ['old-secret-key', 'new-secret-key']) {
      const ok = await fetch(`${engine.url}/Items/A-1`, { headers: { 'X-Api-Key': key } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ isResultSuccess: true, data: { number: 'A-1' } });
    }
    expect(erp.received).toHaveLength(2);
    const text = await metrics.text();
    expect(text).toContain('adapter_requests_refused_total{mapping="connectivity-test",reason="invalid"} 1');
    expect(text).toContain('adapter_requests_total{mapping="connectivity-test",operation="GetItem",result="Succeed"} 2');
  });

  it('basic: the right user and password pass; a wrong password and a missing header are refused and logged without the credential', async () => {
    const captured = capturedLog();
    const { engine, metrics } = await serving(BASIC, { PLATFORM_PASSWORD: 'pa55:word' }, { log: captured.log });
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
    expect((await fetch(`${engine.url}/Items/A-1`, { headers: basic('platform', 'pa55:word') })).status).toBe(200);
    const wrong = await fetch(`${engine.url}/Items/A-1`, { headers: basic('platform', 'guess') });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="adapter-engine/connectivity-test", charset="UTF-8"');
    expect((await fetch(`${engine.url}/Items/A-1`, { headers: basic('someone', 'pa55:word') })).status).toBe(401);
    expect((await fetch(`${engine.url}/Items/A-1`)).status).toBe(401);
    const refusals = captured.lines().filter((line) => String(line.msg).startsWith('request refused'));
    expect(refusals.map((line) => line.reason)).toEqual(['invalid', 'invalid', 'missing']);
    const everything = JSON.stringify(captured.lines());
    expect(everything).not.toContain('guess');
    expect(everything).not.toContain(Buffer.from('platform:guess').toString('base64'));
    const text = await metrics.text();
    expect(text).toContain('adapter_requests_refused_total{mapping="connectivity-test",reason="invalid"} 2');
    expect(text).toContain('adapter_requests_refused_total{mapping="connectivity-test",reason="missing"} 1');
  });

  it('keys written into the file are refused at load: they must come from ${VAR}', () => {
    const text = `${head('http://127.0.0.1:9')}`.replace('operations:\n', 'inbound:\n  auth:\n    type: apiKey\n    keys: ["written-in-the-file"]\noperations:\n') + ITEM;
    const result = checkMappingText(text, 'inline.yaml', {});
    expect(result.mapping).toBeUndefined();
    expect(result.issues).toContainEqual(expect.objectContaining({ code: 'SECRET_INLINE', path: 'inbound.auth.keys[0]', line: 10 }));
  });

  it('a field of another auth type is named as such', () => {
    const text = head('http://127.0.0.1:9').replace('operations:\n', 'inbound:\n  auth:\n    type: basic\n    keys: ["${K}"]\noperations:\n') + ITEM;
    const result = checkMappingText(text, 'mixed.yaml', { K: 'k' });
    expect(result.issues.map((issue) => issue.code)).toContain('SETTING_NOT_FOR_VARIANT');
  });
});

describe('request ids', () => {
  it('a safe X-Request-Id is kept, returned, logged and sent to the ERP; an unsafe one is replaced', async () => {
    const captured = capturedLog();
    const { engine, erp } = await serving('', {}, { log: captured.log });
    const kept = await fetch(`${engine.url}/Items/A-1`, { headers: { 'x-request-id': 'platform-42.a:b' } });
    expect(kept.headers.get('x-request-id')).toBe('platform-42.a:b');
    expect(erp.received[0].headers['x-request-id']).toBe('platform-42.a:b');
    const lines = captured.lines().filter((line) => line.requestId === 'platform-42.a:b');
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['erp call', 'request']));

    const replaced = await fetch(`${engine.url}/Items/A-1`, { headers: { 'x-request-id': 'bad id\twith "quotes"' } });
    const id = replaced.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(erp.received[1].headers['x-request-id']).toBe(id);
  });

  it('system.requestIdHeader renames the header toward the ERP, and false sends none', async () => {
    for (const [setting, header] of [['requestIdHeader: X-Correlation-Id', 'x-correlation-id'], ['requestIdHeader: false', undefined]] as const) {
      const erp = await startRecordingErp({ articleNo: 'A-1' });
      cleanups.push(erp.close);
      const engine = await startEngine(head(erp.url, setting) + ITEM);
      cleanups.push(engine.close);
      await fetch(`${engine.url}/Items/A-1`, { headers: { 'x-request-id': 'abc-1' } });
      const sent = erp.received[0].headers;
      expect(sent['x-request-id']).toBeUndefined();
      if (header) expect(sent[header]).toBe('abc-1');
      else expect(Object.values(sent)).not.toContain('abc-1');
    }
  });
});
