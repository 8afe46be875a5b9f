import { describe, expect, it } from 'vitest';
import { TimeSlices } from '../../engine/time-slices';

describe('time slices', () => {
  it('a new job lets the event loop turn at its first check: it cannot know how long the current turn has run', () => {
    expect(new TimeSlices().due()).toBe(true);
    const strided = new TimeSlices(4);
    expect([strided.due(), strided.due(), strided.due(), strided.due()]).toEqual([false, false, false, true]);
  });
});
