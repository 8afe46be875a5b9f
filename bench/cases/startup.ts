import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AdapterConfig } from '../adapter-process';
import { startAdapter, timedRequest } from '../lib/processes';
import { median, spread, type Row } from '../lib/report';
import { CODE_LOOKUP } from '../requests';
import { EXAMPLE_MAPPING, ratio, type CaseContext, type CaseResult } from './context';

/**
 * Case 4: from spawning the adapter process to its first answered request (a code lookup that goes to
 * the ERP), with 1 and with 20 mapping files. The engine has no multi-mapping `serve` yet, so the
 * 20-file figure is 20 × (loadMapping + createApp + listen) in one process, then the first request to
 * the first app — the work a multi-mapping server would do before answering.
 */

const GOAL_MS = 1000;

/** 20 copies of the example mapping under different names, in a fresh temporary directory. */
function writeMappingCopies(count: number): { files: string[]; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mappings-'));
  const text = fs.readFileSync(EXAMPLE_MAPPING, 'utf8');
  if (!/^name: example$/m.test(text)) throw new Error(`${EXAMPLE_MAPPING} no longer has the line "name: example" the copies rename`);
  const files = Array.from({ length: count }, (_, i) => {
    const name = `customer-${String(i + 1).padStart(2, '0')}`;
    const file = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(file, text.replace(/^name: example$/m, `name: ${name}`));
    return file;
  });
  return { files, dir };
}

async function timeToFirstAnswer(config: AdapterConfig): Promise<number> {
  const adapter = await startAdapter(config);
  try {
    const answer = await timedRequest(adapter.url + CODE_LOOKUP.path, 'GET');
    if (answer.status !== 200 || (JSON.parse(answer.text) as { isResultSuccess?: boolean }).isResultSuccess !== true) {
      throw new Error(`${config.kind} with ${config.mappings.length} mapping(s): the first request failed: ${answer.text.slice(0, 300)}`);
    }
    return performance.now() - adapter.spawnedAt;
  } finally {
    await adapter.stop();
  }
}

export async function startupCase(context: CaseContext): Promise<CaseResult> {
  const repeats = context.quick ? 1 : 5;
  const copies = writeMappingCopies(20);
  const rows: Row[] = [];
  try {
    const one: Record<'engine' | 'baseline', number[]> = { engine: [], baseline: [] };
    const twenty: number[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      one.engine.push(await timeToFirstAnswer({ kind: 'engine', erpUrl: context.erpUrl, mappings: [EXAMPLE_MAPPING] }));
      one.baseline.push(await timeToFirstAnswer({ kind: 'baseline', erpUrl: context.erpUrl, mappings: [] }));
      twenty.push(await timeToFirstAnswer({ kind: 'engine', erpUrl: context.erpUrl, mappings: copies.files }));
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
      note: 'no multi-mapping serve in the engine yet: 20 × loadMapping + createApp + listen in one process, then the first request; a hand-written adapter has no counterpart',
    });
  } finally {
    fs.rmSync(copies.dir, { recursive: true, force: true });
  }
  return { rows, skipped: [] };
}
