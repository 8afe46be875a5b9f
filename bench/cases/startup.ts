import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../engine/paths';
import { writeMappingCopies } from '../lib/mapping-copies';
import { startAdapter, timedRequest } from '../lib/processes';
import { median, spread, type Row } from '../lib/report';
import { CODE_LOOKUP } from '../requests';
import { exampleEnv } from '../../examples/example-env';
import { EXAMPLE_MAPPING, ratio, type CaseContext, type CaseResult } from './context';

/**
 * Case 4: from spawning the adapter process to its first answered request (a code lookup that goes to
 * the ERP), with 1 and with 20 mapping files. The engine is started as a user starts it: the
 * `adapter-engine serve` command (20 files are served on one port, each under /<name>); the baseline
 * is the hand-written adapter's process.
 */

const CLI = path.join(PROJECT_ROOT, 'dist', 'engine', 'cli', 'main.js');
const START_TIMEOUT_MS = 30_000;

const GOAL_MS = 1000;

function expectSuccess(answer: { status: number; text: string }, what: string): void {
  if (answer.status !== 200 || (JSON.parse(answer.text) as { isResultSuccess?: boolean }).isResultSuccess !== true) {
    throw new Error(`${what}: the first request failed: ${answer.text.slice(0, 300)}`);
  }
}

/** `adapter-engine serve <files>` on a free port; the time until the first code lookup is answered. */
async function engineFirstAnswer(files: readonly string[], erpUrl: string): Promise<number> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', ...files], {
    env: { ...process.env, ...exampleEnv(erpUrl), LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`serve did not listen within ${START_TIMEOUT_MS} ms: ${output}`)), START_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      });
      child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code} before listening: ${output}`));
      });
    });
    const answer = await timedRequest(base + CODE_LOOKUP.path, 'GET');
    expectSuccess(answer, `engine with ${files.length} mapping(s)`);
    return performance.now() - spawnedAt;
  } finally {
    child.kill('SIGTERM');
  }
}

async function baselineFirstAnswer(erpUrl: string): Promise<number> {
  const adapter = await startAdapter({ kind: 'baseline', erpUrl, mappings: [] });
  try {
    expectSuccess(await timedRequest(adapter.url + CODE_LOOKUP.path, 'GET'), 'baseline');
    return performance.now() - adapter.spawnedAt;
  } finally {
    await adapter.stop();
  }
}

export async function startupCase(context: CaseContext): Promise<CaseResult> {
  const repeats = context.quick ? 1 : 5;
  const copies = writeMappingCopies(EXAMPLE_MAPPING, 20);
  const rows: Row[] = [];
  try {
    const one: Record<'engine' | 'baseline', number[]> = { engine: [], baseline: [] };
    const twenty: number[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      one.engine.push(await engineFirstAnswer([EXAMPLE_MAPPING], context.erpUrl));
      one.baseline.push(await baselineFirstAnswer(context.erpUrl));
      twenty.push(await engineFirstAnswer(copies.files, context.erpUrl));
    }
    context.log('case 4 start-up: done');
    const e = median(one.engine);
    const b = median(one.baseline);
    rows.push({
      id: 'startup.1', case: '4 start-up, 1 mapping file', metric: 'to first answer', unit: 'ms', better: 'lower',
      engine: e, baseline: b, ratio: ratio(e, b), spread: { engine: spread(one.engine), baseline: spread(one.baseline) },
      goal: { text: `engine < ${GOAL_MS} ms`, met: e < GOAL_MS },
    });
    rows.push({
      id: 'startup.20', case: '4 start-up, 20 mapping files', metric: 'to first answer', unit: 'ms', better: 'lower',
      engine: median(twenty), spread: { engine: spread(twenty) },
      goal: { text: `engine < ${GOAL_MS} ms`, met: median(twenty) < GOAL_MS },
      note: 'adapter-engine serve with 20 files on one port (each under /<name>); the first request goes to the first mapping; a hand-written adapter has no counterpart',
    });
  } finally {
    fs.rmSync(copies.dir, { recursive: true, force: true });
  }
  return { rows, skipped: [] };
}
