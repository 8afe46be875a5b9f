import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, UnsupportedRegexError, type CompiledExpression } from './compile';
import { LinearRegex, requiredText } from './regex';

/** The same expression on JavaScript's RegExp (JSONata's default), for comparison. */
async function withJavaScriptRegex(source: string, input: unknown): Promise<unknown> {
  return jsonata(source).evaluate(input);
}

describe('regular expressions run on RE2 (linear time)', () => {
  const SAME = [
    "$match(s, /(\\d{2})\\.(\\d{2})\\.(\\d{4})/)",
    "$match(s, /[a-z]+/i)",
    "$match(s, /x*/)",
    "$contains(s, /^SO-\\d+$/)",
    "$contains(s, /ab/)",
    "$replace(s, /(\\w+)@(\\w+)/, '$2 at $1')",
    "$replace(s, /\\s+/, ' ')",
    "$split(s, /[,;]\\s*/)",
    "$split(s, /,/, 2)",
    "$match(s, /(a)|(b)/)",
    "$match(s, /(?<year>\\d{4})-(?<month>\\d{2})/)",
    "$match(s, /^line/m)",
    "$match(s, /b+/)",
    // A leading literal run every match must start with (LinearRegex skips RE2 for a text without it).
    "$match(s, /SO-(\\d+)/)",
    "$match(s, /SO-?\\d+/)",
    "$contains(s, /ab+c/)",
    "$match(s, /de|ab/)",
    "$match(s, /DEF/i)",
    "$replace(s, /c@/, '#')",
    "$split(s, /, /)",
  ];
  const TEXTS = ['delivered 30.11.2026 and 01.12.2026', 'SO-12345', 'SO12 and SO-7', 'a@b c@d', 'x, y;z ,  w', 'ABC def', 'ba', 'abbbc abc', 'line1\nline2', '😀😀abbb', ''];

  it('gives what JavaScript regular expressions give for the patterns mappings use', async () => {
    for (const source of SAME) {
      const compiled = compileExpression(source);
      for (const s of TEXTS) {
        const expected = await withJavaScriptRegex(source, { s }).then((value) => ({ value: JSON.stringify(value) }), (error: { code?: string }) => ({ error: error.code }));
        const actual = await compiled.evaluate({ s }).then((value) => ({ value: JSON.stringify(value) }), (error: { code?: string }) => ({ error: error.code }));
        expect(actual, `${source} on ${JSON.stringify(s)}`).toEqual(expected);
      }
    }
  });

  it('names a text every match contains only where it is required', () => {
    expect(requiredText(/LOT-([A-Z]\d{4})/g)).toBe('LOT-');
    expect(requiredText(/SO-?\d+/g)).toBe('SO');
    expect(requiredText(/abc+d/g)).toBe('ab');
    expect(requiredText(/de|ab/g)).toBeUndefined();
    expect(requiredText(/DEF/gi)).toBeUndefined();
    expect(requiredText(/^SO/g)).toBe('SO');
    expect(requiredText(/\d{4}/g)).toBeUndefined();
    // Anywhere in the pattern, outside groups, classes and a quantifier's bounds.
    expect(requiredText(/\s+LOT-[A-Z]\d{4}$/g)).toBe('LOT-');
    expect(requiredText(/\d{4}xy[,;]ab,c/g)).toBe('ab,c');
    expect(requiredText(/a{10,20}/g)).toBeUndefined();
    expect(requiredText(/(LOT-)?x/g)).toBeUndefined();
    expect(requiredText(/x(?:LOT-[A-Z])*y/g)).toBeUndefined();
    expect(requiredText(/[ab,cd]e/g)).toBeUndefined();
    expect(requiredText(new RegExp('[]ab]', 'g'))).toBe('ab');
    expect(requiredText(/\u0041BC/g)).toBeUndefined();
    expect(requiredText(/\.xy\.z/g)).toBe('xy');
  });

  it('gives what JavaScript gives, with and without the required text, on RE2', async () => {
    const texts = ['Hex bolt 9 mm LOT-K4821', 'Hex bolt 9 mm', 'LOT-K4821', ' LOT-K482', 'a  LOT-Q1234', 'LOT- LOT-A0001'];
    for (const pattern of ['/\\s+LOT-[A-Z]\\d{4}$/', '/\\s*LOT-(\\w)/', '/.LOT-/', '/\\S+ LOT/']) {
      for (const s of texts) {
        for (const source of [`$match(s, ${pattern})`, `$replace(s, ${pattern}, "")`, `$contains(s, ${pattern})`]) {
          expect([source, s, await compileExpression(source).evaluate({ s })]).toEqual([source, s, await jsonata(source).evaluate({ s })]);
        }
      }
    }
  });

  it('keeps one program per pattern and flags: the same source with other flags matches as its flags say', async () => {
    const texts = ['ABC', 'abc', 'x\nabc'];
    const sources = ['$match(s, /abc/).match', '$match(s, /abc/i).match', '$match(s, /^abc/).match', '$match(s, /^abc/m).match', '$contains(s, /ABC/)', '$contains(s, /ABC/i)'];
    // Each source compiled twice and evaluated in turns: a program reused across flags would answer wrongly.
    for (let round = 0; round < 2; round++) {
      for (const source of sources) {
        const compiled = compileExpression(source);
        for (const s of texts) expect(await compiled.evaluate({ s }), `${source} on ${JSON.stringify(s)}`).toEqual(await withJavaScriptRegex(source, { s }));
      }
    }
    // A pattern made from a text at request time ($eval) matches the same as the literal.
    expect(new LinearRegex('b+').exec('abbc')?.[0]).toBe('bb');
    const sticky = new LinearRegex(/b/g);
    expect([sticky.exec('abab')?.index, sticky.exec('abab')?.index, sticky.exec('abab')]).toEqual([1, 3, null]);
  });

  it('a pattern that backtracks exponentially in JavaScript answers at once', async () => {
    const started = performance.now();
    const check = compileExpression('$contains(s, /^(a+)+$/)');
    expect(await check.evaluate({ s: `${'a'.repeat(5000)}X` })).toBe(false);
    expect(await check.evaluate({ s: 'a'.repeat(5000) })).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses at compile time what RE2 cannot run, pointing at the literal', () => {
    const cases: [string, RegExp][] = [
      ['$match(s, /(a)\\1/)', /backreference \\1/],
      ['$match(s, /(?<n>a)\\k<n>/)', /named backreference/],
      ['$contains(s, /a(?=b)/)', /lookahead/],
      ['$contains(s, /a(?!b)/)', /negative lookahead/],
      ['$contains(s, /(?<=a)b/)', /lookbehind/],
      ['$contains(s, /(?<!a)b/)', /negative lookbehind/],
      ['$contains(s, /a{1001}/)', /repeat count/],
    ];
    for (const [source, message] of cases) {
      let caught: unknown;
      try {
        compileExpression(source);
      } catch (error) {
        caught = error;
      }
      expect(caught, source).toBeInstanceOf(UnsupportedRegexError);
      expect((caught as UnsupportedRegexError).message).toMatch(message);
      expect((caught as UnsupportedRegexError).offset, source).toBe(source.indexOf('/'));
    }
    // A backslash-digit inside a class is not a backreference in the check (RE2 then gives its own reason).
    expect(() => compileExpression('$contains(s, /[\\1]/)')).toThrow(UnsupportedRegexError);
  });
});

describe('regular expression literals written as code (fast-path/codegen/regex.ts)', () => {
  /** The value, or the error's code, of one evaluation; and how it was answered. */
  async function run(expression: CompiledExpression, input: unknown): Promise<unknown> {
    return expression.evaluate(input).then((value) => ({ value: JSON.stringify(value) }), (error: { code?: string }) => ({ error: error.code }));
  }

  // The corpus's shapes (a lot number read from a line's text), patterns in variables and functions, a replacement by a function, empty matches.
  const WRITTEN = [
    '$match(s, /LOT-([A-Z][0-9]{4})/).groups[0]', '$replace(s, /\\s+LOT-[A-Z]\\d{4}$/, "")', '$contains(s, /LOT-/) ? $substringAfter(s, "LOT-") : null',
    '$string(s) ~> $match(/LOT-[A-Z]\\d+/) ~> $lookup("match")', '( $r := /SO-(\\d+)/; $match(s, $r).groups )', '$replace(s, /(\\w+)/, function($m) { $uppercase($m.match) })',
    '$map($split(s, /[,;]\\s*/), function($p) { $match($p, /\\w+/i).match })', '$match(s, /x*/)', '( $f := function($t) { $replace($t, /o/, "0") }; $map([s, s & "o"], $f) )',
    '$count($match(s, /[A-Z]/))', '$type(/a/)',
  ];
  const TEXTS = ['Hex bolt 9 mm LOT-K4821', 'SO-12, SO-7; box', 'no lot here', 'xx', ''];

  it('gives what the closures and the interpreter give, compiled, with no closure for the literal', async () => {
    for (const source of WRITTEN) {
      const compiled = compileExpression(source);
      const explained = compiled.explain();
      expect([source, explained.runs, explained.delegated]).toEqual([source, 'compiled', []]);
      expect(explained.code).toContain('regexMatcher(');
      const closures = compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { codegen: false });
      const interpreted = compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false });
      let errors = 0;
      for (const s of TEXTS) {
        const expected = await run(interpreted, { s });
        if ('error' in (expected as object)) errors += 1;
        expect([source, s, await run(compiled, { s })]).toEqual([source, s, expected]);
        expect([source, s, await run(closures, { s })]).toEqual([source, s, expected]);
      }
      // Only called by the built-ins: every answer the fast path's (an error, D1004 of an empty match, the interpreter's).
      expect([source, compiled.stats.fallback]).toEqual([source, errors]);
    }
  });

  it('leaves an answer that holds the matcher itself to the interpreter', async () => {
    for (const source of ['( $r := /LOT-/; $r )', '{ "r": /a/ }', '$append([1], /a/)', 'true ? /a/ : 0']) {
      const compiled = compileExpression(source);
      expect(compiled.explain().delegated).toEqual([]);
      await compiled.evaluate({});
      expect([source, compiled.stats]).toEqual([source, { fast: 0, fallback: 1, interpreter: 0 }]);
    }
  });
});
