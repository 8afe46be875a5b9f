import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../engine/paths';
import type { CaseContext, CaseResult } from './cases/context';
import { exportValuesCase } from './cases/export-values';
import { fileIntakeCase } from './cases/file-intake';
import { integratorMappingsCase } from './cases/integrator-mappings';
import { latencyCase } from './cases/latency';
import { manyMappingsCase } from './cases/many-mappings';
import { outboxCase } from './cases/outbox';
import { replicasCase } from './cases/replicas';
import { shadowCase } from './cases/shadow';
import { startupCase } from './cases/startup';
import { throughputCase } from './cases/throughput';
import { workersCase } from './cases/workers';
import { startErpProcess } from './lib/processes';
import { busyWarnings, compareReports, describeMachine, formatTable, type BenchReport, type Row, type Skipped } from './lib/report';

/**
 * `npm run bench [-- --quick] [--json FILE] [--compare FILE] [--only 1,2] [--profile DIR]`
 * The engine against the hand-written baseline, case by case, in one run; see docs/performance.md.
 */

const USAGE = 'usage: npm run bench -- [--quick] [--json FILE] [--compare FILE] [--only 1,2,3,4,5,6,7,8,9,10,11] [--profile DIR]';

const CASES: Record<string, (context: CaseContext) => Promise<CaseResult>> = {
  1: throughputCase,
  2: exportValuesCase,
  3: fileIntakeCase,
  4: startupCase,
  5: workersCase,
  6: outboxCase,
  7: latencyCase,
  8: manyMappingsCase,
  9: replicasCase,
  10: shadowCase,
  11: integratorMappingsCase,
};

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        json: { type: 'string' },
        compare: { type: 'string' },
        only: { type: 'string' },
        profile: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const selected = args.only ? args.only.split(',').map((s) => s.trim()) : Object.keys(CASES);
  const unknown = selected.filter((id) => !CASES[id]);
  if (unknown.length > 0) {
    console.error(`unknown case ${unknown.join(', ')}; the cases are ${Object.keys(CASES).join(', ')}\n${USAGE}`);
    return 2;
  }
  // Read the earlier run first: a missing or broken file should stop us before minutes of measuring.
  const previous = args.compare ? (JSON.parse(fs.readFileSync(args.compare, 'utf8')) as BenchReport) : undefined;
  if (previous && previous.format !== 'adapter-engine-bench/1') throw new Error(`${args.compare} is not a benchmark result file`);

  const machine = describeMachine();
  const startedAt = new Date().toISOString();
  const quick = args.quick;
  const erpOrders = quick ? 20 : 500;
  const engineNodeArgs = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args.profile)}`] : [];
  const log = (line: string) => console.error(`[bench] ${line}`);
  log(`machine: ${machine.cpus} CPUs, Node ${machine.node}${quick ? '; --quick: tiny sizes' : ''}`);

  const erp = await startErpProcess(erpOrders);
  const rows: Row[] = [];
  const skipped: Skipped[] = [];
  try {
    const context: CaseContext = { quick, erpUrl: erp.url, erpOrders, engineNodeArgs, log };
    for (const id of selected) {
      const result = await CASES[id](context);
      rows.push(...result.rows);
      skipped.push(...result.skipped);
    }
  } finally {
    await erp.stop();
  }

  const report: BenchReport = { format: 'adapter-engine-bench/1', startedAt, quick, machine, rows, skipped, warnings: busyWarnings(rows, machine) };
  console.log(formatTable(report));
  const jsonFile = args.json ?? path.join(PROJECT_ROOT, 'bench', 'results', `bench-${startedAt.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`);
  fs.mkdirSync(path.dirname(jsonFile), { recursive: true });
  fs.writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nresults: ${path.relative(process.cwd(), jsonFile)}`);
  if (previous) {
    console.log(`\ncompared with ${args.compare} (${previous.startedAt}):`);
    for (const line of compareReports(report, previous)) console.log(`  ${line}`);
  }
  return 0;
}

main().then((code) => {
  process.exitCode = code;
}, (error: unknown) => {
  console.error(`benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
