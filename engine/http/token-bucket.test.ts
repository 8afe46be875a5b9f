import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from './deadline';
import { DeadlinePassed } from './faults';
import { TokenBucket } from './token-bucket';

describe('TokenBucket (system.rateLimit)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const clock = () => Date.now();

  it('starts full, lets a burst of its capacity through, then one request per refill', async () => {
    const bucket = new TokenBucket(3, 1, clock);
    const started: number[] = [];
    const all = Array.from({ length: 5 }, (_, index) => bucket.take(1, new Deadline(), `c${index}`).then(() => started.push(index)));
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([0, 1, 2]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toEqual([0, 1, 2, 3]);
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(all);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('serves in order: a small request does not overtake a large one waiting', async () => {
    const bucket = new TokenBucket(10, 5, clock);
    await bucket.take(8, new Deadline(), 'first');
    const started: string[] = [];
    const large = bucket.take(10, new Deadline(), 'large').then(() => started.push('large'));
    const small = bucket.take(1, new Deadline(), 'small').then(() => started.push('small'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all([large, small]);
    expect(started).toEqual(['large', 'small']);
  });

  it('learns the level the system reports, less what is still under way', async () => {
    const bucket = new TokenBucket(1000, 50, clock);
    const settleA = await bucket.take(200, new Deadline(), 'a');
    await bucket.take(100, new Deadline(), 'b');
    settleA();
    // The system answered a: it has 500 left, and b's 100 are not yet charged there.
    bucket.observe(500);
    expect(bucket.available).toBe(400);
  });

  it('a wait past the deadline fails at once, naming the rate limit', async () => {
    const bucket = new TokenBucket(10, 1, clock);
    await bucket.take(10, new Deadline(), 'all');
    const failure = await bucket.take(5, new Deadline(2000, clock), 'late').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeadlinePassed);
    expect((failure as Error).message).toContain('system.rateLimit: 5 points were needed, 0 were left, and at 1 per second the wait of 5000 ms would pass it');
  });

  it('a waiter whose wait grew (the system reported less) fails when its deadline passes', async () => {
    const bucket = new TokenBucket(10, 1, clock);
    await bucket.take(9, new Deadline(), 'most');
    const waiting = bucket.take(2, new Deadline(1500, clock), 'late').catch((error: unknown) => error);
    bucket.observe(0);
    await vi.advanceTimersByTimeAsync(1500);
    expect(((await waiting) as Error).message).toContain('waiting for 2 points of system.rateLimit');
  });
});
