import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './cli-process';

/** What the cache folder holds after a run: Node writes one folder per Node version with an entry per module. */
function cacheEntries(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('adapter-engine keeps compiled modules in Node\'s compile cache (compile-cache.ts)', () => {
  const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

  it('writes the cache where NODE_COMPILE_CACHE says, and answers the same from it on the next start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-'));
    const first = await runCli(['--version'], { env: { NODE_COMPILE_CACHE: dir } });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout.trim()).toBe(version);
    // The engine's modules and its dependencies', not just the entry file.
    expect(cacheEntries(dir).length).toBeGreaterThan(100);
    const second = await runCli(['--version'], { env: { NODE_COMPILE_CACHE: dir } });
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: '' });
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-')), 'cache');
    const result = await runCli(['--version'], { env: { NODE_COMPILE_CACHE: dir, NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(cacheEntries(dir)).toEqual([]);
  });

  it('a cache folder it cannot create costs only the cache: the command still works', async () => {
    const notAFolder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-')), 'file');
    fs.writeFileSync(notAFolder, 'not a folder');
    const result = await runCli(['validate', '-e', 'ERP_URL=http://127.0.0.1:9', 'mappings/example.yaml'], { env: { NODE_COMPILE_CACHE: notAFolder } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('example.yaml  ok  19 of 19 routes mapped');
  });
});
