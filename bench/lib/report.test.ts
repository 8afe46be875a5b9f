import { describe, expect, it } from 'vitest';
import { busyWarnings, compareReports, median, spread, type BenchReport, type Machine, type Row } from './report';

const machine: Machine = { cpus: 2, cpuModel: 'x', node: 'v20.0.0', platform: 'linux', totalMemoryMb: 1, loadAverageAtStart: [0.1, 0, 0] };
const row = (id: string, engine: number, ratio: number, better: Row['better'] = 'lower'): Row => ({ id, case: id, metric: 'm', unit: 'ms', better, engine, baseline: engine / ratio, ratio });
const report = (rows: Row[]): BenchReport => ({ format: 'adapter-engine-bench/1', startedAt: '', quick: false, machine, rows, skipped: [], warnings: [] });

describe('benchmark report', () => {
  it('median and spread of repeats', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(spread([90, 100, 110])).toBeCloseTo(0.2);
    expect(spread([5])).toBe(0);
  });

  it('warns when repeats disagree or the machine was loaded', () => {
    const noisy: Row = { ...row('a', 1, 1), spread: { engine: 0.4, baseline: 0.1 } };
    expect(busyWarnings([noisy, row('b', 1, 1)], machine)).toEqual([expect.stringContaining('a m: repeats differ by 40%')]);
    expect(busyWarnings([], { ...machine, loadAverageAtStart: [1.5, 0, 0] })).toEqual([expect.stringContaining('load average 1.5 on 2 CPUs')]);
  });

  it('judges changes by the direction of each metric and ignores noise', () => {
    const before = report([row('lat', 10, 1), row('rps', 100, 1, 'higher'), row('same', 10, 1), row('old', 1, 1)]);
    const after = report([row('lat', 20, 1.05), row('rps', 150, 1.5, 'higher'), row('same', 10.5, 1.02), row('fresh', 1, 1)]);
    expect(compareReports(after, before)).toEqual([
      'worse : lat m engine 10.0 ms → 20.0 ms (+100%)',
      'better: rps m engine 100 ms → 150 ms (+50%)',
      'better: rps m ratio 1.00× → 1.50× (+50%)',
      'new: fresh m',
      'gone: old m',
    ]);
    expect(compareReports(before, before)).toEqual(['no change beyond ±10%']);
  });
});
