import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startServe, stoppedAfterEach, tempDir, writeFile } from './cli-process';

/**
 * The admin listener asks for a bearer token (ADMIN_TOKENS, ADMIN_TOKENS_FILE) on everything but the
 * probes, listens on 127.0.0.1 unless told otherwise, and `requests` sends the token. A real `serve`.
 */

const { running } = stoppedAfterEach(afterEach);

const MAPPING = `version: 1
name: guarded
system:
  baseUrl: http://127.0.0.1:9
operations:
  GetExternalIndexableValueLabel:
    static:
      label: on
`;

async function get(url: string, token?: string): Promise<{ status: number; body: unknown; challenge: string | null }> {
  const response = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return { status: response.status, body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) as unknown : text, challenge: response.headers.get('www-authenticate') };
}

describe('serve: the admin listener needs a token', () => {
  it('journal, metrics and the contract document need one of ADMIN_TOKENS; the probes do not; requests sends ADMIN_TOKEN', { timeout: 60_000 }, async () => {
    const file = writeFile(tempDir(), 'guarded.yaml', MAPPING);
    const serving = await startServe(['--admin-port', '0', file], { ADMIN_TOKENS: 'old-token-1, new-token-2' });
    running.push(serving);
    const admin = serving.adminUrl as string;
    expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await fetch(`${serving.urls[0]}/WorkOrders/WorkOrderExternalIndexableValueLabel`);

    for (const endpoint of ['/requests', '/requests/x-1', '/metrics', '/openapi.json', '/outbox', '/outbox/abcd1234']) {
      for (const token of [undefined, 'wrong-token', 'old-token-1x']) {
        const refused = await get(`${admin}${endpoint}`, token);
        expect(refused.status, `${endpoint} with ${token}`).toBe(401);
        expect(refused.challenge).toBe('Bearer realm="adapter-engine admin"');
      }
    }
    // The outbox's actions change state: POST only, behind the same token.
    const drop = await fetch(`${admin}/outbox/abcd1234/drop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"reason":"x"}' });
    expect(drop.status).toBe(401);
    expect((await get(`${admin}/outbox/abcd1234/drop`, 'old-token-1')).status).toBe(405);
    expect(await get(`${admin}/outbox`, 'old-token-1')).toMatchObject({ status: 200, body: { events: [] } });
    expect((await get(`${admin}/metrics`, 'old-token-1')).status).toBe(200);
    expect((await get(`${admin}/openapi.json`, 'new-token-2')).status).toBe(200);
    const listed = await get(`${admin}/requests`, 'new-token-2');
    expect(listed).toMatchObject({ status: 200, body: { requests: [{ operation: 'GetExternalIndexableValueLabel' }] } });

    // Probes: a Kubernetes probe sends no token; readiness without one says no more than ready or not.
    expect((await get(`${admin}/health/live`)).status).toBe(200);
    expect(await get(`${admin}/health/ready`)).toMatchObject({ status: 200, body: { ready: true } });
    expect(Object.keys((await get(`${admin}/health/ready`)).body as object)).toEqual(['ready']);
    expect((await get(`${admin}/health/ready`, 'old-token-1')).body).toMatchObject({ ready: true, mappings: [{ mapping: 'guarded' }] });

    const withToken = await runCli(['requests', '--admin', admin, '--json'], { env: { ADMIN_TOKENS: '', ADMIN_TOKEN: 'old-token-1' } });
    expect(withToken.code).toBe(0);
    expect(JSON.parse(withToken.stdout)).toMatchObject([{ operation: 'GetExternalIndexableValueLabel' }]);
    const without = await runCli(['requests', '--admin', admin], { env: { ADMIN_TOKENS: '', ADMIN_TOKEN: '' } });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('asks for a token: set ADMIN_TOKEN');
  });

  it('ADMIN_TOKENS_FILE: the file is read again, so a rotation needs no restart; without any token nothing guarded is answered', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const tokens = path.join(dir, 'admin-tokens');
    fs.writeFileSync(tokens, 'first-token-1\n');
    const serving = await startServe(['--admin-port', '0', writeFile(dir, 'guarded.yaml', MAPPING)], { ADMIN_TOKENS: '', ADMIN_TOKENS_FILE: tokens });
    running.push(serving);
    const admin = serving.adminUrl as string;
    expect((await get(`${admin}/requests`, 'first-token-1')).status).toBe(200);
    fs.writeFileSync(tokens, 'first-token-1\nsecond-token-2\n');
    expect((await get(`${admin}/requests`, 'second-token-2')).status).toBe(200);
    fs.writeFileSync(tokens, 'second-token-2\n');
    expect((await get(`${admin}/requests`, 'first-token-1')).status).toBe(401);

    const open = await startServe(['--admin-port', '0', writeFile(dir, 'other.yaml', MAPPING)], { ADMIN_TOKENS: '' });
    running.push(open);
    const refused = await get(`${open.adminUrl as string}/requests`);
    expect(refused.status).toBe(401);
    expect((refused.body as { error: string }).error).toContain('the server has none: start serve with ADMIN_TOKENS');

    const missing = await runCli(['serve', '--admin-port', '0', writeFile(dir, 'third.yaml', MAPPING)], { env: { ADMIN_TOKENS_FILE: path.join(dir, 'nope') } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/ADMIN_TOKENS_FILE .*nope: cannot read it \(ENOENT\)/);
  });
});
