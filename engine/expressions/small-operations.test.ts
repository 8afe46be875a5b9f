import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { comparedWithTheClockStill, outcome } from '../../test/support/jsonata-values';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './compile';

/**
 * The small operations integrator mappings do on every order line (issue 41): a positional index on a
 * field's list (Odoo's many2one pairs, `product_id[0]`), `$pad($string(n), -6, "0")`, `$string` of a
 * number, a condition on a text. Their generated code takes shortcuts for the usual values; each case is
 * compared with the interpreter and the closures in value, sequence marks and error.
 */
comparedWithTheClockStill();

function data(): Record<string, unknown> {
  return {
    o: { a: 1, c: [1, 2], n: [[1, 2], [3]], e: [], f: false, t: 'abc', nul: null, objs: [{ k: 1 }, { k: 2 }], deep: { c: [{ x: [5, 6] }] } },
    lines: [
      { product_id: [7, 'Hex bolt'], state: 'sale', pair: [1, [2, 3]] },
      { product_id: false, state: 'draft', pair: [] },
      { product_id: [9, 'Nut'], state: 'sale', pair: [4] },
    ],
    n: 1234, q: 0.1, big: 1e21, neg: -0, t: 'ab', e: '', grin: '😀x',
  };
}

/** The interpreter's answer, the compiled code's (which gave it itself unless the answer is an error or a limit), the closures'. */
async function sameEverywhere(source: string, limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS): Promise<unknown> {
  const interpreted = await outcome(() => compileExpression(source, limits, '', { fastPath: false }).evaluate(data()));
  const compiled = compileExpression(source, limits);
  expect(await outcome(() => compiled.evaluate(data())), source).toEqual(interpreted);
  const failed = typeof interpreted === 'object' && interpreted !== null && 'error' in interpreted;
  if (!failed) expect([source, compiled.stats]).toEqual([source, { fast: 1, fallback: 0, interpreter: 0 }]);
  const closures = compileExpression(source, limits, '', { codegen: false });
  expect(await outcome(() => closures.evaluate(data())), source).toEqual(interpreted);
  return interpreted;
}

describe('a positional index written as code', () => {
  it.each([
    'o.c[0]', 'o.c[1]', 'o.c[-1]', 'o.c[-2]', 'o.c[-3]', 'o.c[2]', 'o.c[1.5]', 'o.c[-0.5]', 'o.c[0.999]',
    'o.a[0]', 'o.a[-1]', 'o.a[1]', 'o.a[-2]', 'o.missing[0]', 'o.nul[0]', 'o.nul[1]', 'o.f[0]', 'o.t[0]', 'o.e[0]', 'o.e[-1]',
    'o.n[0]', 'o.n[1]', 'o.n[-1]', 'o.n[0][1]', 'o.c[0][0]', 'o.c[0][1]', 'o.c[1][-1]', 'o.c[0][true]', 'o.c[0][$ > 5]',
    'o.objs[0]', 'o.objs[-1].k', 'o.objs[0].k', 'o.objs[5].k', 'o.deep.c[0].x[1]', 'o.deep.c[0].x',
    'lines.product_id[0]', 'lines.product_id[1]', 'lines.product_id[-1]', 'lines.pair[0]', 'lines.pair[1]', 'lines.pair[1][0]',
    'lines[0].product_id[1]', 'lines[state = "sale"].product_id[0]', 'lines[1].product_id[0]', 'lines[2].pair[0]',
    '[o.c[0]]', '[lines.product_id[0]]', 'o.c[0] + 1', '$count(lines.product_id[0])', '$string(lines[0].product_id[0])',
    '($l := lines; $l[0].product_id[1])', '($p := lines[0].product_id; $p[0])', '($p := lines[0].product_id; $p[-1][0])', '($x := o.a; $x[0])',
    '($x := o.n; $x[0])', '($x := o.nul; $x[0])', '($x := o.missing; $x[0])', 'lines.{ "id": product_id[0], "name": product_id[1] }',
  ])('%s answers as the interpreter does', async (source) => {
    await sameEverywhere(source);
  });

  it('is answered without a sequence on the usual path', () => {
    expect(compileExpression('o.c[0]').explain().code).toContain('itemByIndex(run, v, 0)');
  });

  it('keeps the sequence limit', async () => {
    const limits = { ...DEFAULT_EXPRESSION_LIMITS, maxSequence: 2 };
    for (const source of ['lines.product_id[0]', 'lines.pair[0]', 'o.c[0]', 'o.n[0]']) await sameEverywhere(source, limits);
  });
});

describe('small built-ins on their usual values', () => {
  it.each([
    '$pad($string(n), -6, "0")', '$pad($string(n), 6, "0")', '$pad(t, 6)', '$pad(t, -6, "xy")', '$pad(t, 7, "xyz")', '$pad(t, 6, "")',
    '$pad(t, 1.7)', '$pad(t, -6.9, "0")', '$pad(t, 0)', '$pad(t, -1)', '$pad(e, 3, "-")', '$pad(grin, 5, "-")', '$pad(t, 5, "😀")',
    '$pad(t, 5, "😀a")', '$pad(t, -5, "a😀")', '$pad(t, 65536, "ab")', '$pad(t, 65537, "ab")', '$pad(t, 5, "\\uD83D")', '$pad(missing, 5)',
    '$string(n)', '$string(q)', '$string(q * 3)', '$string(1 / 3)', '$string(big)', '$string(neg)', '$string(-5)', '$string(123.456)',
    '$string(1.5e-7)', '$string(12345678901234567890)', '$string(n / 0)', '$string(true)', '$string(null)', '$string(o.c)',
    't ? "yes" : "no"', 'e ? "yes" : "no"', 'missing ? "yes" : "no"', 'n ? "yes" : "no"', 'o.f ? "yes" : "no"', 'o.c ? "yes" : "no"',
    'o.e ? "yes" : "no"', 'o.nul ? "yes" : "no"', 't and n', 'e or o.f', '$boolean(t)', '$not(e)',
    'o.c[$ > 1]', 'o.objs[k = 2]', 'o.objs[k = 2].k', 'o.n[$[0] = 3]', 'lines[state = "draft"]', 'lines[state = "draft"].pair',
  ])('%s answers as the interpreter and JSONata itself do', async (source) => {
    // The engine's $pad and $string serve the interpreter too: JSONata's own are the reference.
    const reference = await outcome(() => jsonata(source).evaluate(data()) as Promise<unknown>);
    expect(await sameEverywhere(source)).toEqual(reference);
  });

  it('keeps the text limit', async () => {
    const limits = { ...DEFAULT_EXPRESSION_LIMITS, maxTextLength: 4 };
    const tooLong = (length: number) => ({ error: `ExpressionLimitError: the expression built a text of ${length} characters; the limit is 4 (a $pad, $join or & that grows without bound?)` });
    const expected: Record<string, unknown> = {
      '$pad(t, 4, "0")': { ok: { value: 'ab00', type: 'string' } },
      '$pad(t, 5, "0")': tooLong(5),
      '$pad(t, -9, "ab")': tooLong(9),
      '$string(n)': { ok: { value: '1234', type: 'string' } },
      '$string(12345)': tooLong(5),
      '$string(q * 3)': { ok: { value: '0.3', type: 'string' } },
    };
    for (const [source, answer] of Object.entries(expected)) expect([source, await sameEverywhere(source, limits)]).toEqual([source, answer]);
  });
});
