import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { formatIssue } from '../../engine/errors';
import { HELPER_FUNCTIONS } from '../../engine/expressions/functions';
import { checkMappingText } from '../../engine/mapping/load';
import { GENERATED, withGenerated } from '../../engine/scripts/write-docs';
import { doctestsOf, runBlocksOf } from './doctest';
import { anchorsOf, blocksOf, docFiles, linksOf, ROOT } from './markdown';

/**
 * The documentation is checked like code: generated parts equal what the declarations give, every YAML
 * example loads, every command example that can run does run, every relative link resolves.
 */
const BINARY = path.join(ROOT, 'dist', 'engine', 'cli', 'main.js');
const execFileAsync = promisify(execFile);
const ENV = { ERP_URL: 'http://erp.test/api/v1', ERP_USER: 'u', ERP_PASSWORD: 'p', ERP_TOKEN: 't', ERP_API_KEY: 'k', ERP_CLIENT_ID: 'id', ERP_CLIENT_SECRET: 's', PLATFORM_API_KEY: 'k1', PLATFORM_API_KEY_NEXT: 'k2', PLATFORM_URL: 'http://platform.test', PLATFORM_CLIENT_SECRET: 's', ERP_PUSH_SECRET: 's', ERP_PUSH_KEY: 'k', ODOO_URL: 'http://odoo.test', ODOO_KEY: 'k', SHOPIFY_URL: 'http://store.test', SHOPIFY_TOKEN: 't', NAV_URL: 'http://nav.test/WS/CRONUS', NS_URL: 'https://1234567-sb1.suitetalk.api.netsuite.com', NS_ACCOUNT_ID: '1234567_SB1', NS_CONSUMER_KEY: 'ck', NS_CONSUMER_SECRET: 'cs', NS_TOKEN_ID: 'ti', NS_TOKEN_SECRET: 'ts' };
const MAPPING_KEYS = ['version', 'name', 'description', 'system', 'inbound', 'limits', 'functions', 'operations', 'platform', 'push'];
const example = parse(fs.readFileSync(path.join(ROOT, 'mappings', 'example.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;

/** YAML examples for the operator's tools, not mappings: checked by their own test below. */
const OPERATOR_YAML = /^# (prometheus rules|prometheus scrape config|kubernetes)\n/;

/** The mapping an excerpt opened by "# examples/<file>.yaml" comes from; other fragments go into mappings/example.yaml. */
const EXCERPT = /^# (examples\/\S+\.yaml)\n/;

/** A fragment rooted at the top of a mapping, put into the example: each block's settings replace the example's. */
function intoExample(fragment: Record<string, unknown>, base: Record<string, unknown> = example): Record<string, unknown> {
  const merged: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(fragment)) {
    const base = merged[key];
    merged[key] = value && typeof value === 'object' && !Array.isArray(value) && base && typeof base === 'object' ? { ...base, ...value } : value;
  }
  return merged;
}

describe('documentation', () => {
  it('has the generated parts as the declarations give them (npm run docs writes them)', () => {
    for (const part of GENERATED) {
      const current = fs.readFileSync(path.join(ROOT, part.file), 'utf8');
      expect(current, `${part.file} is stale: run npm run docs`).toBe(withGenerated(part, current));
    }
  });

  it('lists every helper function in the helper table of the mapping format', () => {
    const guide = fs.readFileSync(path.join(ROOT, 'docs', 'mapping-format.md'), 'utf8');
    const table = guide.slice(guide.indexOf('## Helper functions'), guide.indexOf('### Signatures and digests'));
    for (const helper of HELPER_FUNCTIONS) expect(table, `$${helper.name} in docs/mapping-format.md`).toContain(`\`$${helper.name}(`);
  });

  it('keeps the README short and pointing at every guide', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(200);
    for (const file of docFiles().filter((name) => name.startsWith('docs/'))) expect(readme, `README links ${file}`).toContain(`](${file}`);
    expect(readme).toContain('](bench/README.md');
    expect(readme).toContain('](CHANGELOG.md');
  });

  it('every YAML example is a mapping (or a fragment of one) that loads without errors or old spellings', () => {
    const blocks = docFiles().flatMap(blocksOf).filter((block) => block.lang === 'yaml' && !OPERATOR_YAML.test(block.text));
    expect(blocks.length).toBeGreaterThan(10);
    for (const block of blocks) {
      const where = `${block.file}:${block.line}`;
      const value = parse(block.text) as Record<string, unknown>;
      expect(Object.keys(value).every((key) => MAPPING_KEYS.includes(key)), `${where} is rooted at the top of a mapping`).toBe(true);
      const from = EXCERPT.exec(block.text)?.[1];
      const base = from ? (parse(fs.readFileSync(path.join(ROOT, from), 'utf8')) as Record<string, unknown>) : example;
      const text = 'version' in value ? block.text : JSON.stringify(intoExample(value, base));
      // An excerpt's relative files (a GraphQL schema) are read beside the example it comes from.
      const { mapping, issues } = checkMappingText(text, where, ENV, path.join(ROOT, from ? path.dirname(from) : 'mappings'));
      const problems = issues.filter((issue) => issue.severity === 'error' || issue.code === 'OLD_SPELLING').map(formatIssue);
      expect(problems, `${where}\n${block.text}`).toEqual([]);
      expect(mapping, where).toBeDefined();
    }
  });

  it('every excerpt of an example mapping (a YAML block opened by "# examples/<file>") is in that file as shown', () => {
    const excerpts = docFiles().flatMap(blocksOf).filter((block) => block.lang === 'yaml' && EXCERPT.test(block.text));
    expect(excerpts.length).toBeGreaterThan(0);
    for (const block of excerpts) {
      const source = fs.readFileSync(path.join(ROOT, block.text.slice(2, block.text.indexOf('\n'))), 'utf8');
      const lines = block.text.split('\n').slice(1).filter((line) => line.trim() !== '');
      for (const line of lines) expect(source.split('\n'), `${block.file}:${block.line} ${line}`).toContain(line);
    }
  });

  it('every test-file example runs and passes against its guide\'s mapping (or the example)', () => {
    const blocks = docFiles().flatMap(blocksOf).filter((block) => block.lang === 'yaml-test');
    expect(blocks.length).toBeGreaterThan(0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-tests-'));
    fs.cpSync(path.join(ROOT, 'mappings'), path.join(dir, 'mappings'), { recursive: true });
    for (const [index, block] of blocks.entries()) {
      const file = path.join(dir, 'mappings', `doc-${index}.test.yaml`);
      // A test in a guide tests the guide's own mapping (its last full mapping before the test), else the example.
      const guideMapping = blocksOf(block.file).filter((candidate) => candidate.lang === 'yaml' && candidate.line < block.line && /^version:/m.test(candidate.text)).pop();
      if (guideMapping) fs.writeFileSync(path.join(dir, 'mappings', `doc-${index}.yaml`), guideMapping.text);
      const text = /^mapping:/m.test(block.text) ? block.text : `mapping: ${guideMapping ? `doc-${index}.yaml` : 'example.yaml'}\n${block.text}`;
      fs.writeFileSync(file, text);
      const run = () => execFileSync(process.execPath, [BINARY, 'test', file], { cwd: dir, env: { ...process.env, ...ENV, NO_COLOR: '1', LOG_LEVEL: 'silent' }, encoding: 'utf8' });
      expect(run, `${block.file}:${block.line}`).not.toThrow();
    }
  }, 60_000);

  it('every command example that can run here is run, by the doctests', () => {
    // test/docs/doctests.test.ts runs every shell block of README.md and docs/ (exit status, and output where shown);
    // running the same commands here again cost a quarter of a minute of every test run. A command anywhere else
    // (CHANGELOG.md, bench/README.md) fails here until the doctests run its file too.
    const blocks = docFiles().flatMap(blocksOf).filter((block) => block.lang === 'sh' && !/^# (needs a running engine|long-running|exits 1)/.test(block.text) && !/^# not checked here: /m.test(block.text));
    const commands = blocks.flatMap((block) => block.text.split('\n').filter((line) => /^([A-Z_]+=\S+\s+)*npx adapter-engine /.test(line.trim())).map((line) => ({ block, line })));
    expect(commands.length).toBeGreaterThan(5);
    const doctested = new Set(docFiles().filter((file) => file === 'README.md' || file.startsWith('docs/'))
      .flatMap((file) => [...runBlocksOf(file), ...doctestsOf(file)]).filter((block) => block.skip === undefined).map((block) => `${block.file}:${block.line}`));
    for (const { block, line } of commands) expect(doctested.has(`${block.file}:${block.line}`), `${block.file}:${block.line} ${line}`).toBe(true);
  });

  it('the README tour\'s broken mapping gives exactly the output the README shows', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const shown = /The problem is reported[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(shown).toBeDefined();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-tour-'));
    fs.mkdirSync(path.join(dir, 'mappings'));
    const original = fs.readFileSync(path.join(ROOT, 'mappings', 'example.yaml'), 'utf8');
    const at = original.indexOf('result: WorkOrderDoesNotExist', original.indexOf('GetWorkOrderByCode:'));
    fs.writeFileSync(path.join(dir, 'mappings', 'example.yaml'), `${original.slice(0, at)}result: WorkOrderNotFound${original.slice(at + 'result: WorkOrderDoesNotExist'.length)}`);
    let output = '';
    try {
      execFileSync(process.execPath, [BINARY, 'validate', '-e', 'ERP_URL=http://localhost:8081/api/v1', 'mappings/example.yaml'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8' });
    } catch (error) {
      output = (error as { stdout: string; status: number }).stdout;
      expect((error as { status: number }).status).toBe(1);
    }
    expect(output).toBe(shown);
  });

  it('the push endpoints guide shows examples/push.yaml, which its commands run', () => {
    const guide = fs.readFileSync(path.join(ROOT, 'docs', 'push-endpoints.md'), 'utf8');
    const shown = /```yaml\n(version: 1\n[\s\S]*?)```/.exec(guide)?.[1];
    expect(fs.readFileSync(path.join(ROOT, 'examples', 'push.yaml'), 'utf8')).toBe(`# The push endpoints example of docs/push-endpoints.md (a test keeps the two equal).\n${shown}`);
  });

  it('every relative link and anchor resolves', () => {
    const broken: string[] = [];
    for (const file of docFiles()) {
      for (const { target, line } of linksOf(file)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [pathPart, anchor] = target.split('#');
        const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart));
        if (!fs.existsSync(path.join(ROOT, resolved))) broken.push(`${file}:${line} ${target} (no file)`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${file}:${line} ${target} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the command-line guide names every command and every long option of --help', async () => {
    const guide = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    const help = async (args: string[]) => (await execFileAsync(process.execPath, [BINARY, ...args, '--help'], { encoding: 'utf8' })).stdout;
    const commands = [...(await help([])).matchAll(/^ {2}([a-z-]+)(?: \[options\]| <|\s)/gm)].map((match) => match[1]).filter((name) => name !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['serve', 'validate', 'dry-run', 'test', 'routes']));
    // A Node process per command (twelve with diff and shadow), all at once: each mostly waits for its start.
    const helps = await Promise.all(commands.map((command) => help([command])));
    for (const [index, command] of commands.entries()) {
      expect(guide, command).toContain(command);
      for (const [option] of helps[index].matchAll(/--[a-z][a-z-]+/g)) if (option !== '--help') expect(guide, `${command} ${option}`).toContain(option);
    }
  }, 60_000);
});
