import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS } from './compile';
import { slicedListField } from './list-slices';

const ast = (source: string) => jsonata(source).ast();

describe('which expressions are evaluated a slice of the list at a time', () => {
  it('a list constructor around a path that maps a field’s list element by element', () => {
    expect(slicedListField(ast('[input.( $d := $parseJson(externalData); { "n": workOrderNumber, "c": $d.customer } )]'))).toBe('input');
    expect(slicedListField(ast('[rows.{ "a": a, "b": $count(lines[qty > 1]) }]'))).toBe('rows');
    // The mapping's functions are compiled in front of the expression.
    expect(slicedListField(ast('($f := function($x) { $x * 2 }; [input.$f(qty)])'))).toBe('input');
  });

  it('nothing that sees more than one element, or one instant per evaluation', () => {
    for (const source of [
      'input.{ "a": a }', // no list constructor: one element would give an object, not a list
      '[input]',
      '[input[0].{ "a": a }]',
      '[input[a > 1].{ "a": a }]',
      '[input^(a).{ "a": a }]',
      '[input#$i.{ "a": a, "i": $i }]',
      '[input@$o.{ "a": $o.a }]',
      '[input.{ "a": a, "all": $count($$.input) }]',
      '[input.{ "a": a, "when": $now() }]',
      '[input.{ "a": a, "t": $millis() }]',
      '[input.$eval("a")]',
      '[input.{ "a": a }, extra]',
      '($n := 1; [input.{ "a": a + $n }])',
      '[input{ a: b }]',
    ]) {
      expect(slicedListField(ast(source)), source).toBeUndefined();
    }
  });
});

describe('an expression evaluated in slices', () => {
  const input = {
    input: Array.from({ length: 1000 }, (_, i) => ({ a: i, name: `n${i % 7}`, lines: i % 5 === 0 ? [] : [{ qty: i % 3 }, { qty: 2 }], note: i % 11 === 0 ? null : 'x' })),
    other: 5,
  };

  it.each([
    '[input.{ "a": a, "name": $uppercase(name), "q": $sum(lines.qty) }]',
    '[input.(a % 2 = 0 ? { "even": a } : undefined)]',
    '[input.lines.qty]',
    '[input.[a, a * 2]]',
    '[input.(note ? note & name : [])]',
  ])('%s gives what the interpreter gives for the whole list', async (source) => {
    const sliced = compileExpression(source);
    const whole = await jsonata(source).evaluate(input);
    expect(await sliced.evaluate(input)).toEqual(whole);
  });

  it('keeps the longest list for the joined result', async () => {
    const expression = compileExpression('[input.$append(a, a)]', { ...DEFAULT_EXPRESSION_LIMITS, maxSequence: 1500 });
    await expect(expression.evaluate(input)).rejects.toThrow('the expression built a list of');
  });

  it('lets the event loop turn before a long list is done', async () => {
    const long = { input: Array.from({ length: 200_000 }, (_, a) => ({ a })) };
    const finished: string[] = [];
    const evaluation = compileExpression('[input.{ "b": a + 1 }]').evaluate(long).then((value) => {
      expect(value).toHaveLength(200_000);
      finished.push('evaluation');
    });
    const timer = new Promise<void>((resolve) => setImmediate(() => {
      finished.push('timer');
      resolve();
    }));
    await Promise.all([evaluation, timer]);
    expect(finished).toEqual(['timer', 'evaluation']);
  });
});
