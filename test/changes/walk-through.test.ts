import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blocksOf, commandOf } from '../docs/markdown';
import { ADMIN_AUTH, ADMIN_TOKEN, BINARY, cliEnv, ROOT, runCli, tempDir } from '../cli/cli-process';

/**
 * docs/changing-a-mapping.md's walk-through on the example, run as written: its set-up commands, serve
 * with the candidate (on free ports), the requests, `shadow report`, the metrics, the ERP's new order and
 * `test`'s drift warnings; each line the guide shows as output is checked against what the run prints
 * (times and journal ids aside).
 */
const GUIDE = 'docs/changing-a-mapping.md';
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** The blocks of the Shadow and Drift sections (the Replay section before them has its own test). */
function walkThrough() {
  const start = fs.readFileSync(path.join(ROOT, GUIDE), 'utf8').split('\n').indexOf('## Shadow') + 1;
  expect(start, 'the guide has a "## Shadow" section').toBeGreaterThan(0);
  return blocksOf(GUIDE).filter((block) => block.line > start);
}

/** The walk-through's output blocks, in order, as lines. */
const shownBlocks = () => walkThrough().filter((block) => block.lang === 'text').map((block) => block.text.trimEnd().split('\n'));

/** A shown line with its time and journal ids as patterns. */
function pattern(line: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ {2,}/g, ' +');
  // Split at the times and journal ids; the parts between are matched as written.
  const parts = line.split(/(\d{4}-\d\d-\d\dT[\d:.]+Z|[0-9a-f]{8}-\d+)/);
  const source = parts.map((part, index) => (index % 2 === 0 ? escape(part) : /^\d{4}-/.test(part) ? '\\S+' : '[0-9a-f]{8}-\\d+')).join('');
  return new RegExp(`^${source}$`, 'm');
}

async function served(dir: string): Promise<{ base: string; admin: string; erp: string }> {
  const env = { ...cliEnv({ ADMIN_TOKENS: ADMIN_TOKEN }), ADAPTER_STATE_DIR: path.join(dir, '.adapter-state') };
  // The guide's serve command, on free ports.
  const line = walkThrough().flatMap((block) => block.text.split('\n')).find((text) => text.includes('npx adapter-engine serve'));
  const args = commandOf(line!).args.map((arg) => (arg === '9090' ? '0' : arg));
  const child = spawn(process.execPath, ['--', BINARY, ...args, '--host', '127.0.0.1', '--port', '0'], { cwd: dir, env });
  stops.push(() => child.kill('SIGTERM'));
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stdout}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const base = /listening on (http:\/\/\S+\/example)/.exec(stdout)?.[1];
      const admin = /admin endpoints on (\S+)/.exec(stdout)?.[1];
      const erp = /example ERP listening on (\S+)/.exec(stdout)?.[1];
      if (base && admin && erp) resolve({ base, admin, erp });
    });
  });
}

describe('the walk-through of docs/changing-a-mapping.md', () => {
  it('shows the candidate\'s differences and the drift of the example ERP as the guide does', async () => {
    const dir = tempDir();
    fs.cpSync(path.join(ROOT, 'mappings'), path.join(dir, 'mappings'), { recursive: true });
    const setUp = walkThrough().find((block) => block.lang === 'sh' && block.text.startsWith('mkdir -p served/shadow'));
    execFileSync('bash', ['-e', '-c', setUp!.text], { cwd: dir });
    const { base, admin, erp } = await served(dir);
    const [report, shadowMetrics, driftMetrics, warnings] = shownBlocks();

    const order = await (await fetch(`${base}/WorkOrders/Code?Code=SO-1001`)).json() as { data: { description: string } };
    expect(order.data.description).toBe('Weekly restock Berlin');
    await fetch(`${base}/Items/A-100`);
    const env = { ADMIN_TOKEN, ADAPTER_STATE_DIR: path.join(dir, '.adapter-state') };
    await expect.poll(async () => (await runCli(['shadow', 'report', '--admin', admin], { env, cwd: dir })).stdout, { timeout: 30_000 }).toContain('→');
    const reported = await runCli(['shadow', 'report', '--admin', admin], { env, cwd: dir });
    expect(reported.code).toBe(1);
    for (const line of report) expect(reported.stdout).toMatch(pattern(line));
    // The candidate's run, step by step, as `requests show` shows any request.
    const id = /^(\S+\.shadow) /m.exec(reported.stdout)![1];
    const shown = await runCli(['requests', 'show', id, '--admin', admin], { env, cwd: dir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('WEEKLY RESTOCK BERLIN');
    const metrics = async () => (await fetch(`${admin}/metrics`, { headers: ADMIN_AUTH })).text();
    await expect.poll(metrics, { timeout: 30_000 }).toContain(shadowMetrics[1]);
    for (const line of shadowMetrics) expect(await metrics()).toContain(line);

    const newOrder = walkThrough().find((block) => block.text.includes('/api/v1/sales-orders'))!.text;
    const body = /-d '([^']+)'/.exec(newOrder)![1];
    await fetch(`${erp}/sales-orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const drifted = await (await fetch(`${base}/WorkOrders/Code?Code=SO-2001`)).json() as { isResultSuccess: boolean };
    expect(drifted.isResultSuccess).toBe(true);
    for (const line of driftMetrics) expect(await metrics()).toContain(line);
    const tested = await runCli(['test', 'served/example.test.yaml'], { env, cwd: dir });
    expect(tested.code, tested.stdout).toBe(0);
    for (const line of warnings) expect(tested.stdout).toMatch(pattern(line));

    // Promote, and reload through the pid file as the guide does: the candidate's upper-case description is served.
    const promote = walkThrough().find((block) => block.lang === 'sh' && block.text.includes('shadow promote'))!.text;
    const [promoteLine, reloadLine] = promote.split('\n').filter((text) => text.trim() !== '' && !text.startsWith('#'));
    const promoted = await runCli(commandOf(promoteLine).args, { env, cwd: dir });
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(reloadLine).toBe('kill -HUP "$(cat serve.pid)"');
    execFileSync('bash', ['-e', '-c', reloadLine], { cwd: dir });
    await expect.poll(async () => ((await (await fetch(`${base}/WorkOrders/Code?Code=SO-1001`)).json()) as { data: { description: string } }).data.description, { timeout: 30_000 }).toBe('WEEKLY RESTOCK BERLIN');
  }, 120_000);
});
