import os from 'node:os';

/**
 * The shape of a benchmark run (printed as a table and saved as JSON) and the comparison of two runs.
 * Every figure is engine vs baseline from the same run, so ratios stay meaningful on a noisy machine.
 */

export interface Row {
  /** Stable key across runs, for --compare. */
  readonly id: string;
  readonly case: string;
  readonly metric: string;
  readonly unit: string;
  readonly better: 'lower' | 'higher';
  readonly engine: number;
  /** Absent where a hand-written adapter has no counterpart (20 mapping files). */
  readonly baseline?: number;
  /** engine / baseline. */
  readonly ratio?: number;
  readonly goal?: { readonly text: string; readonly met: boolean };
  /** (max − min) / median over the repeats, per side. */
  readonly spread?: { readonly engine: number; readonly baseline?: number };
  readonly note?: string;
}

export interface Skipped {
  readonly case: string;
  readonly reason: string;
}

export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly platform: string;
  readonly totalMemoryMb: number;
  readonly loadAverageAtStart: readonly number[];
}

export interface BenchReport {
  readonly format: 'adapter-engine-bench/1';
  readonly startedAt: string;
  readonly quick: boolean;
  readonly machine: Machine;
  readonly rows: readonly Row[];
  readonly skipped: readonly Skipped[];
  readonly warnings: readonly string[];
}

/** Repeats whose spread is above this make a figure unreliable: the machine was busy. */
const BUSY_SPREAD = 0.25;
/** Changes smaller than this between two runs are noise, not news. */
const NOTABLE_CHANGE = 0.1;

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    totalMemoryMb: Math.round(os.totalmem() / 1024 / 1024),
    loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function spread(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const middle = median(values);
  return middle === 0 ? 0 : (Math.max(...values) - Math.min(...values)) / middle;
}

/** Warnings for figures whose repeats disagree too much to be trusted, and for a loaded machine. */
export function busyWarnings(rows: readonly Row[], machine: Machine): string[] {
  const warnings: string[] = [];
  if (machine.loadAverageAtStart[0] > machine.cpus * 0.5) {
    warnings.push(`the machine was busy before the run (load average ${machine.loadAverageAtStart[0]} on ${machine.cpus} CPUs)`);
  }
  for (const row of rows) {
    const worst = Math.max(row.spread?.engine ?? 0, row.spread?.baseline ?? 0);
    if (worst > BUSY_SPREAD) warnings.push(`${row.case} ${row.metric}: repeats differ by ${Math.round(worst * 100)}% — the machine was busy; treat this figure with care`);
  }
  return warnings;
}

function formatValue(value: number | undefined, unit: string): string {
  if (value === undefined) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
}

export function formatTable(report: BenchReport): string {
  const header = ['case', 'metric', 'engine', 'baseline', 'ratio', 'goal'];
  const body = report.rows.map((row) => [
    row.case,
    row.metric,
    formatValue(row.engine, row.unit),
    formatValue(row.baseline, row.unit),
    row.ratio === undefined ? '—' : `${row.ratio.toFixed(2)}×`,
    row.goal ? `${row.goal.met ? 'met' : 'MISSED'}: ${row.goal.text}` : '',
  ]);
  const widths = header.map((_, i) => Math.max(header[i].length, ...body.map((cells) => cells[i].length)));
  const lines = [pad(header, widths), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map((cells) => pad(cells, widths))];
  const m = report.machine;
  const out = [
    `machine: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, ${m.platform}, ${m.totalMemoryMb} MB, load average ${m.loadAverageAtStart.join(' ')}${report.quick ? '  [--quick: tiny sizes, figures mean nothing]' : ''}`,
    '',
    ...lines,
  ];
  for (const row of report.rows.filter((r) => r.note)) out.push(`note (${row.case}): ${row.note}`);
  for (const skipped of report.skipped) out.push(`${skipped.case}: skipped: ${skipped.reason}`);
  for (const warning of report.warnings) out.push(`WARNING: ${warning}`);
  return out.join('\n');
}

/** What got better or worse since an earlier run, judged by each metric's direction. */
export function compareReports(current: BenchReport, previous: BenchReport): string[] {
  const lines: string[] = [];
  if (previous.machine.cpus !== current.machine.cpus || previous.machine.node !== current.machine.node) {
    lines.push(`note: the earlier run was on ${previous.machine.cpus} CPUs, Node ${previous.machine.node}; absolute figures may not compare, ratios should`);
  }
  if (previous.quick !== current.quick) lines.push('note: one of the two runs used --quick; the sizes differ');
  const before = new Map(previous.rows.map((row) => [row.id, row]));
  for (const row of current.rows) {
    const old = before.get(row.id);
    if (!old) {
      lines.push(`new: ${row.case} ${row.metric}`);
      continue;
    }
    for (const [what, now, then, better] of [
      ['engine', row.engine, old.engine, row.better],
      ['ratio', row.ratio, old.ratio, row.better],
    ] as const) {
      if (now === undefined || then === undefined || then === 0) continue;
      const change = (now - then) / then;
      if (Math.abs(change) < NOTABLE_CHANGE) continue;
      const improved = better === 'lower' ? change < 0 : change > 0;
      const fmt = what === 'ratio' ? (n: number) => `${n.toFixed(2)}×` : (n: number) => formatValue(n, row.unit);
      lines.push(`${improved ? 'better' : 'worse '}: ${row.case} ${row.metric} ${what} ${fmt(then)} → ${fmt(now)} (${change > 0 ? '+' : ''}${Math.round(change * 100)}%)`);
    }
  }
  for (const old of previous.rows) if (!current.rows.some((row) => row.id === old.id)) lines.push(`gone: ${old.case} ${old.metric}`);
  if (lines.every((line) => line.startsWith('note'))) lines.push(`no change beyond ±${NOTABLE_CHANGE * 100}%`);
  return lines;
}
