import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compileExpression } from './compile';
import { whenFastFunctionsReady } from './fast-path/runtime';

/**
 * JSONata 2.2's `$split`, `$contains`, `$match` and `$replace` are async (the engine's own `$split`,
 * `$match` and `$replace`, guarded-patterns.ts, are async only for a pattern or past a slice). A fast path that called one saw
 * a promise, fell back, and left that promise to reject unhandled, which ends a Node process.
 */
const stray: unknown[] = [];
const onRejection = (reason: unknown) => stray.push(reason);

beforeAll(async () => {
  await whenFastFunctionsReady();
});
afterEach(() => {
  process.off('unhandledRejection', onRejection);
  stray.length = 0;
});

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('async built-ins on the fast path', () => {
  it.each([
    ['$split(input.number, "-", $number(input.number) - 100)', { input: { number: '7' } }],
    ['$contains(input.number, 5)', { input: { number: 'x' } }],
    ['$split(input.number, "-", -1)', { input: { number: 'a-b' } }],
  ])('%s rejects with the interpreter\'s error and leaves no unhandled rejection', async (source, input) => {
    process.on('unhandledRejection', onRejection);
    const expression = compileExpression(source);
    await expect(expression.evaluate(input)).rejects.toMatchObject({ code: expect.stringMatching(/^[DT]\d{4}$/) });
    await settle();
    expect(stray).toEqual([]);
  });

  it('an expression calling one of JSONata\'s async built-ins runs its synchronous twin and answers as the interpreter does', async () => {
    const expression = compileExpression('$contains(input.number, "-") and $contains(input.number, /b-c$/)');
    expect(await expression.evaluate({ input: { number: 'a-b-c' } })).toBe(true);
    expect(await compileExpression('$contains(input.number, "-") and $contains(input.number, /b-c$/)', undefined, '', { fastPath: false }).evaluate({ input: { number: 'a-b-c' } })).toBe(true);
    expect(expression.stats.fast).toBe(1);
  });

  it('$split by a text is the engine\'s own, synchronous while it fits in a slice (guarded-patterns.ts): the fast path answers it', async () => {
    const expression = compileExpression('$split(input.number, "-")');
    expect(await expression.evaluate({ input: { number: 'a-b-c' } })).toEqual(['a', 'b', 'c']);
    expect(expression.stats).toEqual({ fast: 1, fallback: 0, interpreter: 0 });
  });
});
