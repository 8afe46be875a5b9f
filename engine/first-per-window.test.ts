import { describe, expect, it } from 'vitest';
import { firstPerWindow } from './first-per-window';

describe('firstPerWindow', () => {
  it('lets the first of each kind through once per window', () => {
    let clock = 0;
    const first = firstPerWindow(1000, () => clock);
    expect([first('a'), first('a'), first('b')]).toEqual([true, false, true]);
    clock = 999;
    expect(first('a')).toBe(false);
    clock = 1000;
    expect([first('a'), first('b'), first('a')]).toEqual([true, true, false]);
  });

  it('forgets every kind when more than its limit are remembered', () => {
    const first = firstPerWindow(1000, () => 0, 2);
    expect([first('a'), first('b'), first('c'), first('a')]).toEqual([true, true, true, true]);
  });
});
