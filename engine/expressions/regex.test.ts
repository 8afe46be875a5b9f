import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, UnsupportedRegexError } from './compile';
import { LinearRegex, requiredStart } from './regex';

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

  it('names the text every match starts with only where it is required', () => {
    expect(requiredStart(/LOT-([A-Z]\d{4})/g)).toBe('LOT-');
    expect(requiredStart(/SO-?\d+/g)).toBe('SO');
    expect(requiredStart(/abc+d/g)).toBe('ab');
    expect(requiredStart(/de|ab/g)).toBeUndefined();
    expect(requiredStart(/DEF/gi)).toBeUndefined();
    expect(requiredStart(/^SO/g)).toBeUndefined();
    expect(requiredStart(/\d{4}/g)).toBeUndefined();
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
