import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BINARY, cliEnv, startServe, type Serving } from '../cli/cli-process';
import { doctestsOf, printed, runBlocksOf, shownPattern, type Doctest, type RunBlock } from './doctest';
import { docFiles, ROOT } from './markdown';

/**
 * Every command in README.md and docs/ whose output is shown runs here, against the example (the built
 * CLI; `serve --example-erp` for `# needs a running engine`), and prints what is shown, placeholders
 * aside (test/docs/doctest.ts says which).
 */
const documents = docFiles().filter((file) => file === 'README.md' || file.startsWith('docs/'));
const doctests = documents.flatMap(doctestsOf);
const runBlocks = documents.flatMap(runBlocksOf);
const runnable = doctests.filter((doctest) => doctest.skip === undefined);

/** A checkout to run in: the commands name mappings/ and examples/ files, and some write files. */
function checkout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doctest-'));
  for (const folder of ['mappings', 'examples']) fs.cpSync(path.join(ROOT, folder), path.join(dir, folder), { recursive: true });
  return dir;
}

/** The ports the docs show, and the ones of the engine this run started. */
interface Ports { readonly engine: string; readonly erp: string; readonly platform: string; readonly admin: string }
const SHOWN_PORTS: Ports = { engine: '8080', erp: '8081', platform: '8082', admin: '9090' };

/** The push signing secret of the engine, and of the reader's shell (docs/push-endpoints.md signs with $ERP_PUSH_SECRET). */
const PUSH_SECRET = 'doctest-push-secret';
let engine: Serving | undefined;
afterAll(async () => {
  if (!engine) return;
  engine.child.kill('SIGTERM');
  await engine.exited;
}, 60_000);

async function runningEngine(): Promise<Ports> {
  engine ??= await startServe(['--example-erp', '--admin-port', '0', 'mappings/example.yaml'], { ERP_PUSH_SECRET: PUSH_SECRET }, 1);
  const urls = engine.output().stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string; url?: string });
  const port = (prefix: string) => new URL(String(urls.find((line) => line.msg.startsWith(prefix))?.url)).port;
  return { engine: port('adapter engine listening on '), erp: port('example ERP listening on '), platform: port('platform stand-in listening on '), admin: port('admin endpoints on ') };
}

function withPorts(text: string, from: Ports, to: Ports): string {
  let result = text;
  for (const name of ['engine', 'erp', 'platform', 'admin'] as const) result = result.replace(new RegExp(`(localhost|127\\.0\\.0\\.1):${from[name]}\\b`, 'g'), `$1:${to[name]}`);
  return result;
}

/** Runs the block as a reader's shell does (`npx adapter-engine` is the built CLI), stdout and stderr in order; and its exit status. */
async function execute(block: Pick<Doctest, 'script' | 'needsEngine'>): Promise<{ output: string; status: number | null }> {
  const ports = block.needsEngine ? await runningEngine() : SHOWN_PORTS;
  const script = withPorts(block.script, SHOWN_PORTS, ports).replaceAll('npx adapter-engine ', `'${process.execPath}' '${BINARY}' `);
  // The reader's shell beside a running engine has its admin token and push secret; elsewhere neither is set.
  const env = cliEnv(block.needsEngine ? { ADMIN_TOKEN, ERP_PUSH_SECRET: PUSH_SECRET } : {});
  // -e: a block of several commands fails at the first that fails, as a reader would notice.
  const result = spawnSync('sh', ['-e', '-c', `exec 2>&1\n${script}`], { cwd: checkout(), env, encoding: 'utf8', timeout: 60_000 });
  return { output: withPorts(printed(result.stdout), ports, SHOWN_PORTS), status: result.status };
}

async function run(doctest: Doctest): Promise<string> {
  return (await execute(doctest)).output;
}

describe('every other shell block of README.md and docs/ runs as shown', () => {
  it('each block left out says why, where the reader sees it', () => {
    expect(runBlocks.length).toBeGreaterThan(10);
    for (const block of runBlocks.filter((candidate) => candidate.skip !== undefined)) expect(block.skip, `${block.file}:${block.line}`).toMatch(/\w{3,}/);
  });

  it.each(runBlocks.filter((block) => block.skip === undefined).map((block) => [`${block.file}:${block.line}`, block] as const))('%s exits as it says', async (_where, block: RunBlock) => {
    const { output, status } = await execute(block);
    expect(status, output).toBe(block.exitCode);
  }, 90_000);
});

describe('doctests: the shown output of every command in README.md and docs/', () => {
  it('finds the commands with shown output, and each that opts out says why', () => {
    expect(runnable.length).toBeGreaterThan(4);
    for (const doctest of doctests.filter((candidate) => candidate.skip !== undefined)) expect(doctest.skip, `${doctest.file}:${doctest.line}`).toMatch(/\w{3,}/);
  });

  it.each(runnable.map((doctest) => [`${doctest.file}:${doctest.line}`, doctest] as const))('%s prints what it shows', async (_where, doctest) => {
    const output = await run(doctest);
    // On a mismatch, the text as shown against what was printed gives a readable diff.
    if (!shownPattern(doctest.shown).test(output)) expect(output).toBe(printed(doctest.shown));
  }, 90_000);
});
