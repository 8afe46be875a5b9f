import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { NO_METER } from '../metrics/meter';
import { emptyShape, learn } from './shape';
import { createDriftWatch, DRIFT_CHECKS_PER_SECOND } from './watch';

/** A watch over one call whose recordings all had `qty`, on a clock the test moves, counting what it meters. */
function watching() {
  let clock = 1_000_000;
  const counted: string[] = [];
  const watch = createDriftWatch({ meter: { ...NO_METER, drift: ({ call, kind }) => counted.push(`${call} ${kind}`) }, log: silentLogger, now: () => clock });
  const shape = emptyShape();
  learn(shape, { no: 'SO-1', qty: 5 });
  watch.learned('acme', { shapes: new Map([['order', shape]]) });
  return { watch, counted, advance: (ms: number) => { clock += ms; } };
}

describe('the live drift check', () => {
  it('checks every answer while a call answers fewer than DRIFT_CHECKS_PER_SECOND a second', () => {
    const { watch, counted, advance } = watching();
    for (let index = 0; index < 30; index += 1) {
      expect(watch.check('acme', 'order', { no: `SO-${index}` })).toHaveLength(1);
      advance(1000 / DRIFT_CHECKS_PER_SECOND);
    }
    expect(counted).toHaveLength(30);
  });

  it('checks at most DRIFT_CHECKS_PER_SECOND answers of a call a second under load: its cost stays fixed, drift is still found every second', () => {
    const { watch, counted, advance } = watching();
    const marked = (count: number) => Array.from({ length: count }, () => watch.check('acme', 'order', { no: 'SO-9' }).length).filter((marks) => marks > 0).length;
    expect(marked(500)).toBe(DRIFT_CHECKS_PER_SECOND);
    // Another call has a budget of its own (here: no recordings, nothing to check).
    expect(watch.check('acme', 'lines', { no: 'SO-9' })).toEqual([]);
    advance(1000);
    expect(marked(500)).toBe(DRIFT_CHECKS_PER_SECOND);
    expect(counted).toHaveLength(2 * DRIFT_CHECKS_PER_SECOND);
  });
});
