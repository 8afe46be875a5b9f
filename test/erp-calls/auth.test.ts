import { inspect } from 'node:util';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../engine/errors';
import { createEngine } from '../../engine/core/engine';
import { createHttpClient } from '../../engine/http/client';
import { TokenSource } from '../../engine/http/token-source';
import { checkMappingText } from '../../engine/mapping/load';
import { head, mappingFromText, startEngine, type RunningEngine, type StartOptions } from '../support/engine';
import { json, sequence, startMisbehavingErp, status, type Handler, type MisbehavingErp } from '../support/misbehaving-erp';

const LABEL = '/WorkOrders/WorkOrderExternalIndexableValueLabel';
const SECRET = 's3cr3t-value-never-printed';
const SUCCESS = { isResultSuccess: true, result: 2, validationStatus: null, externalMessage: null, data: { label: 'ERP id' } };

const labelOperation = `  GetExternalIndexableValueLabel:
    calls:
      - name: label
        method: GET
        path: /label
    output: '{ "label": calls.label.body.text }'
`;

let erp: MisbehavingErp;
let engine: RunningEngine | undefined;
beforeEach(async () => {
  erp = await startMisbehavingErp();
  erp.on('GET /label', () => json({ text: 'ERP id' }));
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await erp.close();
});

const start = (auth: string, env: Record<string, string> = { SECRET }, options: StartOptions = {}) => startEngine(head(erp.url, auth) + labelOperation, { env, ...options });

describe('static credentials', () => {
  it('sends no credentials with type none (and without auth at all)', async () => {
    engine = await start('auth: { type: none }');
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.requests[0].headers.authorization).toBeUndefined();
    expect(erp.count()).toBe(1);
  });

  it('sends HTTP Basic', async () => {
    engine = await start('auth: { type: basic, username: erp-user, password: "${SECRET}" }');
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.requests[0].headers.authorization).toBe(`Basic ${Buffer.from(`erp-user:${SECRET}`).toString('base64')}`);
    expect(erp.count()).toBe(1);
  });

  it('sends a bearer token', async () => {
    engine = await start('auth: { type: bearer, token: "${SECRET}" }');
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(erp.count()).toBe(1);
  });

  it('sends an API key as a header (default) or as a query parameter', async () => {
    engine = await start('auth: { type: apiKey, name: X-Api-Key, value: "${SECRET}" }');
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.requests[0].headers['x-api-key']).toBe(SECRET);
    await engine.close();
    engine = await start('auth: { type: apiKey, in: query, name: api_key, value: "${SECRET}" }');
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.requests[1].query.get('api_key')).toBe(SECRET);
    expect(erp.requests[1].headers['x-api-key']).toBeUndefined();
    expect(erp.count()).toBe(2);
  });
});

describe('OAuth2 client credentials', () => {
  const oauth = (url: string) => `auth:
  type: oauth2ClientCredentials
  tokenUrl: ${url}/oauth/token
  clientId: engine
  clientSecret: \${SECRET}
  scope: erp.read`;
  let issued = 0;
  const tokenEndpoint = (expiresIn = 3600): Handler => () => json({ access_token: `token-${++issued}`, token_type: 'Bearer', expires_in: expiresIn });
  beforeEach(() => {
    issued = 0;
  });

  it('fetches the token once for a burst of concurrent requests and keeps using it', async () => {
    erp.on('POST /oauth/token', tokenEndpoint());
    engine = await start(oauth(erp.url));
    const burst = await Promise.all(Array.from({ length: 5 }, () => engine!.call('GET', LABEL)));
    expect(burst).toEqual(Array.from({ length: 5 }, () => SUCCESS));
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count('POST /oauth/token')).toBe(1);
    expect(erp.count('GET /label')).toBe(6);
    expect(new Set(erp.requests.filter((r) => r.path === '/label').map((r) => r.headers.authorization))).toEqual(new Set(['Bearer token-1']));
    const tokenRequest = erp.requests.find((r) => r.path === '/oauth/token')!;
    expect(Object.fromEntries(new URLSearchParams(tokenRequest.body))).toEqual({ grant_type: 'client_credentials', scope: 'erp.read' });
    expect(tokenRequest.headers.authorization).toBe(`Basic ${Buffer.from(`engine:${SECRET}`).toString('base64')}`);
  });

  it('renews the token once when the ERP answers 401, then succeeds', async () => {
    erp.on('POST /oauth/token', tokenEndpoint());
    erp.on('GET /label', sequence(status(401), json({ text: 'ERP id' })));
    engine = await start(oauth(erp.url));
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count('POST /oauth/token')).toBe(2);
    expect(erp.count('GET /label')).toBe(2);
    expect(erp.requests.filter((r) => r.path === '/label').map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('renews only once: a second 401 is the answer', async () => {
    erp.on('POST /oauth/token', tokenEndpoint());
    erp.on('GET /label', sequence(status(401)));
    engine = await start(oauth(erp.url));
    expect(await engine.call('GET', LABEL)).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(erp.count('POST /oauth/token')).toBe(2);
    expect(erp.count('GET /label')).toBe(2);
  });

  it('answers AdapterApiClientFailed when the token endpoint fails, without calling the ERP or showing the secret', async () => {
    erp.on('POST /oauth/token', sequence(status(401, undefined, { error: 'invalid_client', error_description: `bad secret ${SECRET}` })));
    const lines: string[] = [];
    const log = pino({ level: 'debug' }, new Writable({ write(chunk, _enc, next) { lines.push(String(chunk)); next(); } }));
    engine = await start(oauth(erp.url), { SECRET }, { log });
    const envelope = await engine.call('GET', LABEL);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1, data: null });
    expect(JSON.stringify(envelope)).toContain('token endpoint');
    expect(JSON.stringify(envelope)).toContain('invalid_client');
    expect(JSON.stringify(envelope)).not.toContain(SECRET);
    expect(lines.join('')).not.toContain(SECRET);
    expect(lines.join('')).toContain('invalid_client');
    expect(erp.count('POST /oauth/token')).toBe(1);
    expect(erp.count('GET /label')).toBe(0);
  });

  it('gives AdapterApiClientFailed when the token endpoint cannot be reached', async () => {
    engine = await start(oauth('http://127.0.0.1:1'));
    expect(await engine.call('GET', LABEL)).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(erp.count()).toBe(0);
  });

  it('renews a token shortly before it expires (clock of the token source)', async () => {
    erp.on('POST /oauth/token', tokenEndpoint(100));
    const mapping = mappingFromText(head(erp.url, oauth(erp.url)) + labelOperation, { SECRET });
    let now = 1_000_000;
    const http = createHttpClient();
    try {
      const tokens = new TokenSource(mapping.system.auth as never, http, undefined, () => now);
      expect(await tokens.get(1000)).toBe('token-1');
      now += 85_000; // 100 s lifetime, renewed 10 s (a tenth) before the end
      expect(await tokens.get(1000)).toBe('token-1');
      now += 6_000;
      expect(await tokens.get(1000)).toBe('token-2');
    } finally {
      http.close();
    }
    expect(erp.count('POST /oauth/token')).toBe(2);
  });
});

describe('secrets', () => {
  it('stay out of the log and the dry-run trace, while reaching the ERP', async () => {
    for (const auth of ['{ type: apiKey, in: query, name: api_key, value: "${SECRET}" }', '{ type: basic, username: u, password: "${SECRET}" }']) {
      const mapping = mappingFromText(head(erp.url, `auth: ${auth}\nretry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 }`) + labelOperation, { SECRET });
      erp.on('GET /label', (_request, seen) => (seen % 2 === 1 ? status(503) : json({ text: 'ERP id' })));
      const lines: string[] = [];
      const log = pino({ level: 'trace' }, new Writable({ write(chunk, _enc, next) { lines.push(String(chunk)); next(); } }));
      const trace: unknown[] = [];
      const observer = { request: (r: unknown) => trace.push(r), attempt: (...a: unknown[]) => trace.push(a), response: (...a: unknown[]) => trace.push(a) };
      const engine = createEngine({ mappings: [mapping], log });
      try {
        const answer = await engine.handle({ method: 'GET', path: LABEL }, { observer });
        expect(answer.outcome?.resultName).toBe('Success');
      } finally {
        await engine.close();
      }
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(SECRET);
      expect(trace.length).toBe(4); // request, two attempts, response
      expect(JSON.stringify(trace)).not.toContain(SECRET);
      expect(inspect(trace, { depth: 10 })).not.toContain(SECRET);
    }
    const sentToErp = erp.requests.map((r) => `${r.query.get('api_key')} ${r.headers.authorization}`);
    expect(sentToErp).toEqual([
      `${SECRET} undefined`, `${SECRET} undefined`,
      `null Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}`, `null Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}`,
    ]);
  });

  it('never print: not in the model, its JSON, or util.inspect', () => {
    const mapping = mappingFromText(head(erp.url, 'auth: { type: basic, username: u, password: "${SECRET}" }') + labelOperation, { SECRET });
    expect(JSON.stringify(mapping.system)).not.toContain(SECRET);
    expect(inspect(mapping, { depth: 10 })).not.toContain(SECRET);
    expect(String((mapping.system.auth as { password: unknown }).password)).toBe('***');
  });

  it('must come from an environment variable: a literal secret is refused at load, at its line', () => {
    const text = head('http://erp.local', 'auth:\n  type: bearer\n  token: abc123') + labelOperation;
    const { issues } = checkMappingText(text, 'test.yaml', {});
    const errors = issues.filter((i) => i.severity === 'error');
    expect(errors.map((i) => [i.code, i.line])).toEqual([['SECRET_INLINE', 8]]);
    expect(formatIssue(errors[0])).toMatch(/^test\.yaml:8:12 {2}system\.auth\.token is a secret and must come from an environment variable/);
    expect(formatIssue(errors[0])).not.toContain('abc123');
  });

  it('checks the fields of each auth type at load', () => {
    const text = head('http://erp.local', 'auth:\n  type: basic\n  token: ${SECRET}') + labelOperation;
    const errors = checkMappingText(text, 'test.yaml', { SECRET }).issues.filter((i) => i.severity === 'error').map(formatIssue);
    expect(errors).toEqual([
      'test.yaml:7:5  system.auth with type basic is missing the required setting "username"',
      'test.yaml:7:5  system.auth with type basic is missing the required setting "password"',
      'test.yaml:8:5  system.auth.token does not apply to type basic (it takes: username, password)',
    ]);
    const badUrl = head('http://erp.local', 'auth: { type: oauth2ClientCredentials, tokenUrl: "not a url", clientId: x, clientSecret: "${SECRET}" }') + labelOperation;
    expect(checkMappingText(badUrl, 'test.yaml', { SECRET }).issues.map((i) => i.code)).toContain('TOKEN_URL_INVALID');
  });
});
