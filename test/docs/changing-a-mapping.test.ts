import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ROOT, runCli, startServe, stoppedAfterEach, tempDir } from '../cli/cli-process';
import { blocksOf, commandOf } from './markdown';

/**
 * The Replay walk-through of docs/changing-a-mapping.md, followed as a reader does in a fresh directory:
 * its server started as shown (on free ports), its requests sent, its commands run in order with the
 * exit status they are shown with, and their output compared with the output shown (journal ids, times
 * and test file positions differ from run to run and are compared as such).
 */
const GUIDE = 'docs/changing-a-mapping.md';
const { running } = stoppedAfterEach(afterEach);

function replaySection() {
  const text = fs.readFileSync(path.join(ROOT, GUIDE), 'utf8');
  const start = text.split('\n').indexOf('## Replay') + 1;
  const next = text.split('\n').findIndex((line, index) => index >= start && /^## /.test(line));
  const end = next === -1 ? Infinity : next + 1;
  expect(start, 'the guide has a "## Replay" section').toBeGreaterThan(0);
  return blocksOf(GUIDE).filter((block) => block.line > start && block.line < end);
}

/** What differs from run to run: journal ids, times, and where a case sits in the example's test file. */
function comparable(text: string): string {
  return text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>').replace(/request [\w-]+,/g, 'request <id>,').replace(/(\.test\.yaml):\d+:\d+/g, '$1:<line>');
}

/**
 * A reader's default state directory after an earlier run: the example served once, asked once, stopped.
 * Its journal outlives that server, so a walk-through started in it would export that request too.
 */
async function stateOfAnEarlierRun(): Promise<string> {
  const stateDir = tempDir();
  const earlier = await startServe(['--example-erp', 'mappings/example.yaml'], { ADAPTER_STATE_DIR: stateDir });
  expect((await fetch(`${earlier.urls[0]}/Items/A-100`)).status).toBe(200);
  earlier.child.kill('SIGTERM');
  expect((await earlier.exited).code).toBe(0);
  return stateDir;
}

describe('docs/changing-a-mapping.md, Replay', () => {
  it('the walk-through runs as shown, on the example served as shown', async () => {
    const blocks = replaySection();
    const serve = blocks.flatMap((block) => block.text.split('\n')).find((line) => line.includes('npx adapter-engine serve'));
    const served = commandOf(serve as string);
    expect(served.args).toEqual(['serve', '--example-erp', '--admin-port', '9090', '--state-dir', '$(mktemp -d)', 'mappings/example.yaml']);
    const dir = tempDir();
    fs.cpSync(path.join(ROOT, 'mappings'), path.join(dir, 'mappings'), { recursive: true });
    // Started as shown, where the default state directory holds an earlier run's journal: the counts shown hold all the same.
    const args = served.args.slice(1).map((arg) => (arg === '9090' ? '0' : arg === '$(mktemp -d)' ? tempDir() : arg));
    const serving = await startServe(args, { ADAPTER_STATE_DIR: await stateOfAnEarlierRun() });
    running.push(serving);
    const here = (text: string) => text.replaceAll('http://localhost:8080', serving.urls[0]).replaceAll('http://127.0.0.1:9090', serving.adminUrl as string);

    let commands = 0;
    for (const [index, block] of blocks.entries()) {
      if (block.lang !== 'sh' || /^# long-running/.test(block.text)) continue;
      const shown = blocks[index + 1]?.lang === 'text' ? blocks[index + 1].text : undefined;
      for (const line of block.text.split('\n').filter((one) => one.trim() !== '' && !one.startsWith('#'))) {
        const at = `${GUIDE}:${block.line} ${line}`;
        if (line.startsWith('curl ')) {
          const answer = await fetch(here(/(http\S+?)'?$/.exec(line)?.[1] as string));
          expect(answer.status, at).toBe(200);
          continue;
        }
        if (!line.startsWith('npx adapter-engine ') && !/^[A-Z_]+=\S+ npx adapter-engine /.test(line)) {
          execFileSync('bash', ['-c', line], { cwd: dir });
          continue;
        }
        const { args, env } = commandOf(here(line));
        // The reader's shell: no ERP_URL (the ERP and the server may be gone), nothing but what the line sets.
        const result = await runCli(args, { cwd: dir, env: { ...env, ...('ADMIN_TOKEN' in env ? { ADMIN_TOKEN } : {}) } });
        commands += 1;
        expect(result.code, `${at}\n${result.stdout}${result.stderr}`).toBe(/^# exits 1/.test(block.text) ? 1 : 0);
        // All it prints is shown: a warning on stderr the guide leaves out fails here too.
        if (shown !== undefined) expect(comparable(result.stdout + result.stderr), at).toBe(comparable(shown));
      }
    }
    expect(commands).toBe(5);

    // The last sentence: a change that alters nothing.
    const same = await runCli(['diff', 'mappings/example.yaml', 'mappings/example.yaml', '--requests', 'requests.jsonl'], { cwd: dir });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('same  all 4 answers are the same');
  }, 180_000);
});
