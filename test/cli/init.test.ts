import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROUTES } from '../../engine/contract/routes';
import { ROOT, runCli, STACK_LINE, tempDir, writeFile } from './cli-process';

describe('adapter-engine init', () => {
  it('writes a mapping with every route and a test file, validates at once, and the tests pass', async () => {
    const dir = tempDir();
    const result = await runCli(['init', 'acme'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('wrote mappings/acme.yaml and mappings/acme.test.yaml');
    expect(result.stdout).toMatch(/mappings\/acme\.yaml:\d+:\d+ {2}warning: environment variable ERP_URL is not set/);
    expect(result.stdout).toContain(`mappings/acme.yaml  ok  ${ROUTES.length} of ${ROUTES.length} routes mapped, 1 warning`);

    const tests = await runCli(['test', 'mappings/acme.test.yaml'], { cwd: dir });
    expect(tests.code).toBe(0);
    expect(tests.stdout).toContain(`ok  ${ROUTES.length} passed, 0 failed`);
  });

  it('names the format\'s JSON Schema for editors on its first line, and passes validate --strict (issue 31)', async () => {
    const dir = tempDir();
    expect((await runCli(['init', 'acme'], { cwd: dir })).code).toBe(0);
    const first = fs.readFileSync(path.join(dir, 'mappings', 'acme.yaml'), 'utf8').split('\n')[0];
    const schema = /^# yaml-language-server: \$schema=(\S+)$/.exec(first)?.[1];
    // Outside a project that holds the engine, a path into the engine's folder would hold only on this machine: the published address.
    expect(schema).toBe('https://adapter-engine.dev/schemas/mapping.schema.json');
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', 'mapping.schema.json'), 'utf8'))).toMatchObject({ $id: schema, description: 'Adapter engine mapping file, format v1.' });
    const strict = await runCli(['validate', '--strict', 'mappings/acme.yaml'], { cwd: dir, env: { ERP_URL: 'http://erp.invalid/api' } });
    expect(strict.stdout).toContain(`mappings/acme.yaml  ok  ${ROUTES.length} of ${ROUTES.length} routes mapped`);
    expect(strict.code).toBe(0);
    // The test file names its own schema the same way.
    const testSchema = /^# yaml-language-server: \$schema=(\S+)$/.exec(fs.readFileSync(path.join(dir, 'mappings', 'acme.test.yaml'), 'utf8').split('\n')[0])?.[1];
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', 'mapping-test.schema.json'), 'utf8'))).toMatchObject({ $id: testSchema, title: 'Adapter engine mapping tests' });
  });

  it('comments every route from the contract table: what the platform sends, what it must answer, its result names', async () => {
    const dir = tempDir();
    const result = await runCli(['init', 'plant-7', '--dir', 'customers/eu'], { cwd: dir });
    expect(result.code).toBe(0);
    const text = fs.readFileSync(path.join(dir, 'customers', 'eu', 'plant-7.yaml'), 'utf8');
    const mapping = parse(text) as { name: string; operations: Record<string, unknown> };
    expect(mapping.name).toBe('plant-7');
    expect(Object.keys(mapping.operations)).toEqual(ROUTES.map((route) => route.operationId));
    for (const route of ROUTES) {
      const block = text.slice(text.indexOf(`# ─── ${route.method} ${route.path}: ${route.summary}\n`), text.indexOf(`  ${route.operationId}:\n`));
      expect(block, route.operationId).toContain(`# Results it may use, by name: ${Object.keys(route.results).join(', ')}.`);
      expect(block, route.operationId).toMatch(/# The platform sends: .+\.\n/);
      expect(block, route.operationId).toContain(route.kind === 'event' ? `# It must answer: no data: ${route.successResult}` : `with ${route.successResult}.`);
      for (const param of route.params) expect(block, route.operationId).toContain(`${param} (input.${param})`);
    }
    const cases = (parse(fs.readFileSync(path.join(dir, 'customers', 'eu', 'plant-7.test.yaml'), 'utf8')) as { cases: { operation: string }[] }).cases;
    expect(cases.map((testCase) => testCase.operation)).toEqual(ROUTES.map((route) => route.operationId));
  });

  it('never overwrites: an existing file is a usage error (exit 2) and nothing is written', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'mappings'));
    const existing = writeFile(path.join(dir, 'mappings'), 'acme.test.yaml', 'cases: []\n');
    const result = await runCli(['init', 'acme'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mappings/acme.test.yaml exists already; a new mapping never overwrites a file');
    expect(fs.existsSync(path.join(dir, 'mappings', 'acme.yaml'))).toBe(false);
    expect(fs.readFileSync(existing, 'utf8')).toBe('cases: []\n');
    expect(result.stdout + result.stderr).not.toMatch(STACK_LINE);
  });

  it('a name that cannot be a file name is a usage error (exit 2)', async () => {
    const dir = tempDir();
    const result = await runCli(['init', '../acme'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot name a mapping');
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
