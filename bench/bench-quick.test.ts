import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from './lib/report';

// `npm run bench -- --quick` end to end, so the harness cannot rot: every case runs at a tiny size in
// real child processes (ERP, adapters, autocannon), the table and the JSON come out, and --compare reads
// an earlier result. Figures are not checked: they mean nothing at these sizes.

const ROOT = path.join(__dirname, '..');
// A hang guard, not a timing check: on an idle 2-core machine every case takes about 60 s at quick size,
// and a CI run on the same 2 cores shares them with the other test files (one run under a load average
// of 12 needed more than 90 s).
const RUN_TIMEOUT_MS = 300_000;

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'bench', 'run.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the quick benchmark did not finish within ${RUN_TIMEOUT_MS} ms\n${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run bench -- --quick', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-quick-'));
  const jsonFile = path.join(dir, 'quick.json');
  const previousFile = path.join(dir, 'previous.json');
  let result: Awaited<ReturnType<typeof runBench>>;
  let report: BenchReport;

  beforeAll(async () => {
    // The harness runs compiled code in child processes: test/cli/build-once.ts (the run's global setup)
    // has built dist/ from this source tree, bench/ included, when it was stale.
    const previous = {
      format: 'adapter-engine-bench/1', startedAt: '2026-01-01T00:00:00.000Z', quick: true,
      machine: { cpus: 2, cpuModel: 'test', node: process.version, platform: 'test', totalMemoryMb: 1, loadAverageAtStart: [0, 0, 0] },
      rows: [{ id: 'startup.1', case: '4 start-up, 1 mapping file', metric: 'to first answer', unit: 'ms', better: 'lower', engine: 1, baseline: 1, ratio: 1 }],
      skipped: [], warnings: [],
    };
    fs.writeFileSync(previousFile, JSON.stringify(previous));
    result = await runBench(['--quick', '--json', jsonFile, '--compare', previousFile]);
    report = JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as BenchReport;
  }, RUN_TIMEOUT_MS + 15_000);

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('exits cleanly and prints the machine and the table', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^machine: \d+ CPUs .*Node v\d+/m);
    expect(result.stdout).toMatch(/^case\s+metric\s+engine\s+baseline\s+ratio\s+goal$/m);
    for (const label of ['1 GET /WorkOrders/Code', '1 GET /WorkOrders (', '1 POST ConfirmWorkOrderStep', '1 POST /WorkOrders/ForPutWall (event)', '2 ExportValues', '4 start-up, 1 mapping file', '4 start-up, 20 mapping files', '6 POST /WorkOrders/ForPutWall (event)', '6 delivery lag', '7 cheap GET during 1,000-order export', '7 cheap GET during 2,000-line file', '8 3 mapping files in one serve']) {
      expect(result.stdout).toContain(label);
    }
  });

  it('runs the file case or says plainly why not', () => {
    const ran = report.rows.some((row) => row.id.startsWith('file.'));
    if (ran) expect(result.stdout).toMatch(/^3 File CSV/m);
    else expect(result.stdout).toContain('3 File CSV: skipped: the mapping forwards files to the ERP (issue 3 not merged)');
  });

  it('runs two replicas on one PostgreSQL or says plainly why not', () => {
    const ran = report.rows.some((row) => row.id.startsWith('replicas.'));
    if (!ran) {
      expect(result.stdout).toMatch(/^9 two serve replicas on one PostgreSQL: skipped: no PostgreSQL/m);
      return;
    }
    const ids = report.rows.map((row) => row.id);
    for (const id of ['replicas.pg.accepted', 'replicas.pg.delivered', 'replicas.pg.lag.p50', 'replicas.pg.lag.p99']) expect(ids).toContain(id);
  });

  it('writes the same figures as JSON, engine and baseline side by side', () => {
    expect(report.format).toBe('adapter-engine-bench/1');
    expect(report.quick).toBe(true);
    expect(report.machine.cpus).toBeGreaterThan(0);
    const ids = report.rows.map((row) => row.id);
    for (const id of ['throughput.code.rps', 'throughput.all.p99', 'throughput.step.cpuMsPerRequest', 'throughput.event.p50', 'throughput.all.noJournalCpuMsPerRequest', 'throughput.all.journalCpuShare', 'throughput.peakRssMb', 'throughput.noJournal.peakRssMb', 'export.1000.time', 'export.1000.rss', 'startup.1', 'startup.20', 'outbox.sqlite.rps', 'outbox.direct.rps', 'outbox.lag.sqlite.p99', 'latency.export.worst', 'latency.export.p99', 'latency.file.large', 'latency.xml.worst', 'latency.xml.p99', 'many.startup', 'many.rssPerMapping', 'many.code.cpuRatio', 'many.reload.worst', 'shadow.p99Ms', 'shadow.rps', 'shadow.cpuMsPerRequest', 'shadow.paced.p99Ms']) {
      expect(ids).toContain(id);
    }
    for (const row of report.rows) {
      // Per-mapping figures are differences of two processes (3 mappings less 1): below zero is possible at this size.
      // So is the journal's share of serve's CPU (a difference of two processes' CPU, noise at this size).
      if (!['many.rssPerMapping', 'many.startup.cpuPerMapping'].includes(row.id) && !row.id.endsWith('.journalCpuShare')) expect(row.engine).toBeGreaterThan(0);
      // Rows without a hand-written counterpart (20 mapping files, the outbox's lag and backlog) have no ratio.
      if (row.baseline !== undefined) expect(row.ratio).toBeCloseTo(row.engine / row.baseline, 6);
      else expect(row.ratio).toBeUndefined();
    }
  });

  it('measures each integrator mapping of the corpus: its compiled share and its time against its twin', () => {
    const ids = report.rows.map((row) => row.id);
    for (const name of ['odoo', 'nav', 'rest']) for (const id of [`integrator.${name}.compiledShare`, `integrator.${name}.transformRatio`]) expect(ids).toContain(id);
  });

  it('compares with the earlier result and names what changed', () => {
    expect(result.stdout).toContain(`compared with ${previousFile}`);
    expect(result.stdout).toMatch(/worse : 4 start-up, 1 mapping file to first answer engine 1\.00 ms → /);
    expect(result.stdout).toContain('new: 1 GET /WorkOrders/Code throughput');
  });
});
