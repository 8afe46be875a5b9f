import { describe, expect, it } from 'vitest';
import { Deadline } from './deadline';
import { DeadlinePassed } from './faults';
import { Slots } from './slots';

/** Work that runs until it is let go, recording when it started. */
function held(started: string[], name: string): { readonly work: () => Promise<string>; readonly finish: () => void; readonly fail: (error: Error) => void } {
  let finish: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    work: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
    fail: (error) => fail(error),
  };
}

describe('Slots', () => {
  it('starts work at once in a free slot, holds at most its size, and serves the line first come first served', async () => {
    const slots = new Slots(2);
    const started: string[] = [];
    const deadline = new Deadline();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => held(started, name)) as [ReturnType<typeof held>, ReturnType<typeof held>, ReturnType<typeof held>, ReturnType<typeof held>];
    const runs = [a, b, c, d].map((unit, index) => slots.run(deadline, `call[${index}]`, unit.work));
    expect(started).toEqual(['a', 'b']);
    expect({ active: slots.activeCount, pending: slots.pendingCount }).toEqual({ active: 2, pending: 2 });
    b.finish();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual(['a', 'b', 'c']);
    a.fail(new Error('the ERP went away'));
    await expect(runs[0]).rejects.toThrow('the ERP went away');
    await Promise.resolve();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    c.finish();
    d.finish();
    expect(await Promise.all(runs.slice(2))).toEqual(['c', 'd']);
    expect({ active: slots.activeCount, pending: slots.pendingCount }).toEqual({ active: 0, pending: 0 });
  });

  it('fails a request whose deadline passes in the line, and hands the slot to the one after it', async () => {
    const slots = new Slots(1);
    const started: string[] = [];
    const first = held(started, 'first');
    const running = slots.run(new Deadline(), 'orders', first.work);
    const late = slots.run(new Deadline(5), 'lines', held(started, 'late').work);
    const next = held(started, 'next');
    const waiting = slots.run(new Deadline(), 'products', next.work);
    const failure = await late.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeadlinePassed);
    expect((failure as Error).message).toContain('lines');
    expect(slots.pendingCount).toBe(1);
    first.finish();
    await running;
    next.finish();
    expect(await waiting).toBe('next');
    expect(started).toEqual(['first', 'next']);
    expect(slots.activeCount).toBe(0);
  });

  it('refuses a limit that is not a whole number from 1 up', () => {
    expect(() => new Slots(0)).toThrow(TypeError);
    expect(() => new Slots(1.5)).toThrow(TypeError);
    expect(new Slots(Infinity).activeCount).toBe(0);
  });
});
