import jsonata from 'jsonata';
import { beforeAll, describe, expect, it } from 'vitest';
import { outcome } from '../../test/support/jsonata-values';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './compile';
import { regexMatcher } from './fast-path/language';
import { whenFastFunctionsReady } from './fast-path/runtime';
import { PATTERN_BUILTINS } from './guarded-patterns';
import { OWN_REGEX } from './regex';

/**
 * `$match`, `$replace`, `$split` and `$contains` given a regular expression literal on the compiled path
 * run the literal's engine themselves on a short text (guarded-patterns.ts's eachOwnMatch,
 * higher-order.ts's contains): the same matches, groups, indexes and errors as JSONata's loop over its
 * matcher and each match's `next`, which the interpreter and longer texts still take.
 */

const LONG = 'ab,'.repeat(400);

/** [expression, input]: each answered by plain JSONata, the interpreter with the guarded built-ins and the compiled path. */
const CASES: readonly (readonly [string, unknown])[] = [
  ['$match(s, /LOT-([A-Z][0-9]{4})/)', { s: 'Hex bolt 9 mm LOT-K4821' }],
  ['$match(s, /LOT-([A-Z][0-9]{4})/).groups[0]', { s: 'LOT-A0001 and LOT-B0002' }],
  ['$match(s, /LOT-([A-Z][0-9]{4})/, 1)', { s: 'LOT-A0001 and LOT-B0002' }],
  ['$match(s, /LOT-([A-Z][0-9]{4})/, 0)', { s: 'LOT-A0001' }],
  ['$match(s, /LOT-([A-Z][0-9]{4})/)', { s: 'no lot' }],
  ['$match(s, /LOT-([A-Z][0-9]{4})/)', {}],
  ['$match(s, /a(b)?/)', { s: 'a ab a' }],
  ['$match(s, /(a)|(b)/)', { s: 'ba' }],
  ['$match(s, /\\s+LOT-([A-Z])/)', { s: 'x  LOT-K y LOT-Q' }],
  // A zero-length match: the first is taken; one after it never progresses (D1004), even after the last the limit allows.
  ['$match(s, /x*/)', { s: '' }],
  ['$match(s, /x*/)', { s: 'xx' }],
  ['$match(s, /x*/)', { s: 'abc' }],
  ['$match(s, /x*/, 1)', { s: 'abc' }],
  ['$match(s, /x*/)', { s: 'xxa' }],
  ['$match(s, /a$/)', { s: 'aba' }],
  ['$match(s, /^a/)', { s: 'aba' }],
  ['$count($match(t, /ab/))', { t: LONG }],
  // The longest text the built-ins match in one go (63 characters, 63 matches), and one character more.
  ['$count($match(t, /a/))', { t: 'a'.repeat(63) }],
  ['$count($match(t, /a/))', { t: 'a'.repeat(64) }],
  ['$count($split(t, /a/, 70))', { t: 'a'.repeat(63) }],
  ['$match(t, /x*/)', { t: `${'x'.repeat(62)}y` }],
  ['$match(t, /x*/)', { t: LONG }],
  ['$split(s, / /)', { s: 'Hex bolt 9 mm' }],
  ['$split(s, /,/, 2)', { s: 'a,b,c' }],
  ['$split(s, /,/)', { s: ',a,,b,' }],
  ['$split(s, /x*/)', { s: 'abc' }],
  ['$split(s, /\\s*;\\s*/)', { s: 'a ; b;c' }],
  ['$count($split(t, /,/))', { t: LONG }],
  ['$replace(s, /\\s+LOT-[A-Z]\\d{4}$/, "")', { s: 'Hex bolt 9 mm LOT-K4821' }],
  ['$replace(s, /\\s+LOT-[A-Z]\\d{4}$/, "")', { s: 'Hex bolt 9 mm' }],
  ['$replace(s, /(o)/, "[$1$0$$$2]", 2)', { s: 'foo boo' }],
  ['$replace(s, /(o)(p)?/, "<$2|$1>")', { s: 'op o' }],
  ['$replace(s, /o/, "0", 0)', { s: 'foo' }],
  ['$replace(s, /x*/, "-")', { s: 'abc' }],
  ['$replace(s, /x*/, "-")', { s: '' }],
  ['$replace(s, /o/, function($m) { $uppercase($m.match) & $m.index })', { s: 'foo' }],
  ['$replace(s, /o/, function($m) { $m.next().match })', { s: 'foo' }],
  ['$replace(s, /o/, function($m) { 1 })', { s: 'foo' }],
  ['$length($replace(t, /ab/, "x"))', { t: LONG }],
  ['$contains(s, /LOT-/)', { s: 'Hex bolt 9 mm LOT-K4821' }],
  ['$contains(s, /LOT-/)', { s: 'Hex bolt' }],
  ['$contains(s, /\\s+LOT/)', { s: 'Hex LOT' }],
  ['$contains(s, /\\s+LOT/)', { s: 'HexLOT' }],
  ['$contains(s, /x*/)', { s: 'abc' }],
  ['$contains(s, /LOT/)', {}],
  ['$map(items, function($i) { $match($i, /[0-9]+/).match })', { items: ['a1', 'b22', 'c'] }],
  // One matcher for three calls, one after the other (JSONata evaluates an array's items at once, interleaving their matches).
  ['( $re := /b/; $c := $contains(s, $re); $p := $split(s, $re); [$c, $p, $match(s, $re).index] )', { s: 'abcb' }],
];

async function threeWays(source: string, input: unknown, limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS): Promise<{ original: unknown; interpreted: unknown; compiled: unknown; fast: number }> {
  const options = { timeout: 10_000, stack: limits.maxDepth, sequence: limits.maxSequence } as jsonata.JsonataOptions;
  const original = await outcome(() => jsonata(source, options).evaluate(input));
  const interpreted = await outcome(() => compileExpression(source, limits, '', { fastPath: false }).evaluate(input));
  const expression = compileExpression(source, limits);
  const compiled = await outcome(() => expression.evaluate(input));
  return { original, interpreted, compiled, fast: expression.stats.fast };
}

describe('the pattern built-ins run a literal\'s engine themselves on the compiled path', () => {
  beforeAll(async () => {
    await whenFastFunctionsReady();
  });

  it('give what JSONata gives, compiled and interpreted', async () => {
    for (const [source, input] of CASES) {
      const { original, interpreted, compiled, fast } = await threeWays(source, input);
      const where = `${source} on ${JSON.stringify(input).slice(0, 60)}`;
      expect(interpreted, where).toEqual(original);
      expect(compiled, where).toEqual(original);
      // The compiled path answered, but where JSONata's answer is an error (the interpreter reports it) or the
      // text is long (its matches run in time slices, and a slow first run may hand them to the interpreter).
      if (!('error' in (original as object)) && !JSON.stringify(input).includes(LONG)) expect([where, fast]).toEqual([where, 1]);
    }
  });

  it('stop at the sequence limit and the text limit as the interpreter does', async () => {
    const limits = { ...DEFAULT_EXPRESSION_LIMITS, maxSequence: 3, maxTextLength: 12 };
    for (const source of ['$match(s, /o/)', '$split(s, /o/)', '$replace(s, /o/, "0000")', '$replace(s, /o/, "0")', '$match(s, /o/, 3)']) {
      const { interpreted, compiled } = await threeWays(source, { s: 'foo boo' }, limits);
      expect([source, compiled]).toEqual([source, interpreted]);
    }
  });

  it('run the engine of the literal\'s matcher without calling the matcher, on a short text only', () => {
    const [, , match] = PATTERN_BUILTINS;
    const real = regexMatcher(/LOT-([A-Z][0-9]{4})/g);
    let calls = 0;
    const counted = Object.assign((text: string, fromIndex?: number) => {
      calls += 1;
      return real(text, fromIndex);
    }, { [OWN_REGEX]: (real as unknown as Record<symbol, unknown>)[OWN_REGEX] });
    const found = match.implementation.call(undefined, 'LOT-A0001 LOT-B0002', counted) as unknown[];
    expect(found).toEqual([{ match: 'LOT-A0001', index: 0, groups: ['A0001'] }, { match: 'LOT-B0002', index: 10, groups: ['B0002'] }]);
    expect(calls).toBe(0);
    const longest = `${' '.repeat(54)}LOT-C0003`;
    expect(match.implementation.call(undefined, longest, counted)).toEqual([{ match: 'LOT-C0003', index: 54, groups: ['C0003'] }]);
    expect(calls).toBe(0);
    expect(match.implementation.call(undefined, ` ${longest}`, counted)).toEqual([{ match: 'LOT-C0003', index: 55, groups: ['C0003'] }]);
    expect(calls).toBe(1);
  });
});
