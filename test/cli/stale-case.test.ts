import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE, runCli, tempDir, writeFile } from './cli-process';

/**
 * Issue 39: a case that names a call the mapping no longer makes (the call was renamed since `init`
 * wrote the case) made the whole file unrunnable, and `record` added to that file without a word. Such a
 * case fails alone, saying why at its line; the others run; `record` warns of it.
 */
function testFile(dir: string): string {
  const mapping = path.relative(dir, EXAMPLE).split(path.sep).join('/');
  return writeFile(dir, 'items.test.yaml', `mapping: ${mapping}
cases:
  - name: an unknown item is ItemDoesNotExist
    operation: GetItem
    input: { number: A-999 }
    answers:
      article: { status: 404, body: { error: { code: NOT_FOUND, message: Article A-999 not found } } }
    expect: { result: ItemDoesNotExist, externalMessage: Article A-999 not found }
  - name: an item, recorded when the call was named product
    operation: GetItem
    input: { number: A-100 }
    answers:
      product: { body: { articleNo: A-100 } }
    expect: { result: Succeed }
`);
}

describe('a case naming a call that no longer exists', () => {
  it('fails alone, at its line and with the reason; the other cases run', async () => {
    const dir = tempDir();
    const file = testFile(dir);
    const result = await runCli(['test', file]);
    const shown = result.stdout.replaceAll(`${dir}/`, '');
    expect(shown).toContain('  ✓ an unknown item is ItemDoesNotExist');
    expect(shown).toContain('  ✗ an item, recorded when the call was named product  items.test.yaml:9:5');
    expect(shown).toContain('      items.test.yaml:13:7  "product" is not a call of GetItem; it makes: article');
    expect(shown).toContain('FAILED  1 passed, 1 failed  (1 file)');
    expect(shown).not.toContain('could not run');
    expect(result.code).toBe(1);
  });

  it('validate --strict names it among the failing cases', async () => {
    const dir = tempDir();
    const file = testFile(dir);
    const result = await runCli(['validate', '--strict', '--tests', file, EXAMPLE]);
    expect(result.stdout.replaceAll(`${dir}/`, '')).toContain('items.test.yaml:9:5  the case "an item, recorded when the call was named product" cannot run: "product" is not a call of GetItem; it makes: article (items.test.yaml:13:7)');
    expect(result.code).toBe(1);
  });

  it('record warns of it before adding its case to the file', async () => {
    const dir = tempDir();
    const file = testFile(dir);
    const result = await runCli(['record', EXAMPLE, 'GET /Items/A-100', '--out', file, '--example-erp']);
    expect(result.code).toBe(0);
    expect(result.stderr.replaceAll(`${dir}/`, '')).toContain('items.test.yaml:13:7  warning: the case "an item, recorded when the call was named product" cannot run: "product" is not a call of GetItem; it makes: article');
    expect(result.stdout).toContain('recorded "GetItem recorded');
  });
});
