import { describe, expect, it } from 'vitest';
import { cpuBudget } from './cpu-budget';

/** Work on this thread that takes at least `ms` of its time. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the work the budget counts */ }
}

describe('the journal\'s CPU budget', () => {
  it('lets a quiet journal spend 10 ms at once, then only its share of the time that passes', async () => {
    const budget = cpuBudget(0.01);
    expect(budget.allows()).toBe(true);
    budget.spend(() => busyFor(12));
    // Spent past the burst (50 ms used to be allowed at once): nothing more until 1% of the time repays it.
    expect(budget.allows()).toBe(false);
    await expect.poll(() => budget.allows(), { timeout: 10_000, interval: 100 }).toBe(true);
  });

  it('returns what the work returns, and counts work that throws', () => {
    const budget = cpuBudget(0.01);
    expect(budget.spend(() => 'kept')).toBe('kept');
    expect(() => budget.spend(() => {
      busyFor(11);
      throw new Error('no JSON text');
    })).toThrow('no JSON text');
    expect(budget.allows()).toBe(false);
  });
});
