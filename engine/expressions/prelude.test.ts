import { describe, expect, it } from 'vitest';
import { compileExpression } from './compile';
import { createPrelude } from './prelude';

const definitions = [
  { name: 'unit', text: "function($c) { $c = 'KG' ? 4 : 0 }" },
  { name: 'line', text: 'function($l) { { "n": $l.no, "u": $unit($l.u) } }' },
  { name: 'other', text: 'function($x) { $x + 1 }' },
];

describe('the functions prelude of an expression', () => {
  const preludeFor = createPrelude(definitions);

  it('is empty for an expression that calls no mapping function', () => {
    expect(preludeFor('response.status = 404')).toBe('');
  });

  it('holds the functions used, also through another function, in declaration order', () => {
    expect(preludeFor('lines.$line($)')).toBe(`$unit := ${definitions[0].text};\n$line := ${definitions[1].text};`);
    expect(preludeFor('$other(1)')).toBe(`$other := ${definitions[2].text};`);
  });

  it('holds every function when $eval could name any of them', () => {
    expect(preludeFor("$eval('$other(1)')").split('\n')).toHaveLength(3);
  });

  it('gives expressions that evaluate as with the whole prelude', async () => {
    const source = 'lines.$line($)';
    const input = { lines: [{ no: 'A', u: 'KG' }, { no: 'B', u: 'M' }] };
    const everything = createPrelude(definitions)("$eval('')");
    const [trimmed, whole] = await Promise.all([
      compileExpression(source, undefined, preludeFor(source)).evaluate(input),
      compileExpression(source, undefined, everything).evaluate(input),
    ]);
    // JSONata marks its result sequences with extra properties; compare what reaches the platform.
    expect(JSON.stringify(trimmed)).toBe('[{"n":"A","u":4},{"n":"B","u":0}]');
    expect(JSON.stringify(trimmed)).toBe(JSON.stringify(whole));
  });
});
