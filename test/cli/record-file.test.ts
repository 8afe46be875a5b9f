import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXAMPLE, runCli, tempDir, writeFile } from './cli-process';

/**
 * Issue 39: `record` rewrote the whole test file it added to (comments moved, `[x]` → `[ x ]`), and a
 * file it created named the test schema by a path into the engine's folder that held on one machine only.
 */
describe('record writes its case and nothing else', () => {
  it('adds the case after every byte of an existing file with comments and flow sequences', async () => {
    const dir = tempDir();
    const mapping = path.relative(dir, EXAMPLE).split(path.sep).join('/');
    const written = `# Cases of the example, by hand: keep this comment
mapping: ${mapping}
cases:
  - name: an unknown item   # trailing comment
    operation: GetItem
    input: { number: A-999 }
    answers:
      article: { status: 404, body: { error: { code: NOT_FOUND, message: Article A-999 not found }, tags: [x] } }
    # the message reaches the operator
    expect: { result: ItemDoesNotExist, externalMessage: Article A-999 not found }
`;
    const file = writeFile(dir, 'items.test.yaml', written);
    const result = await runCli(['record', EXAMPLE, 'GET /Items/A-100', '--out', file, '--name', 'A-100 as recorded', '--example-erp']);
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.slice(0, written.length)).toBe(written);
    expect(text.slice(written.length)).toMatch(/^ {2}- name: A-100 as recorded\n/);
    expect((parse(text) as { cases: { name: string }[] }).cases.map((testCase) => testCase.name)).toEqual(['an unknown item', 'A-100 as recorded']);
    const run = await runCli(['test', file]);
    expect(run.stdout).toContain('ok  2 passed, 0 failed');
  });

  it('names the test schema of a new file by its published address, not a path into the engine\'s folder', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'new.test.yaml');
    const result = await runCli(['record', EXAMPLE, 'GET /Items/A-100', '--out', file, '--example-erp']);
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=https://adapter-engine.dev/schemas/mapping-test.schema.json');
  });
});
