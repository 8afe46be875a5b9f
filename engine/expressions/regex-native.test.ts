import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { nativeEquivalent } from './regex-native';

/** Patterns as JSONata hands them to the regex engine: the literal's flags with `g` added. */
const literal = (source: string, flags = ''): RegExp => new RegExp(source, `g${flags}`);

const NATIVE = [
  'LOT-([A-Z][0-9]{4})',
  'LOT-',
  'LOT-[A-Z]\\d+',
  'Nav(NCL|CSide)RecordNotFoundException',
  '^SO-\\d{3,6}$',
  '(\\d{2})\\.(\\d{2})\\.(\\d{4})',
  '^[A-Z]{2}-?\\d{4}',
  'x*',
  '(?:ab|cd)[_\\-/]\\w{2}',
  '(a)|(b)',
];

const RE2_ONLY: readonly (readonly [string, string?])[] = [
  // Catastrophic or polynomial on a backtracking engine.
  ['(a+)+$'],
  ['a*a*b'],
  ['\\d+$'],
  ['\\s+LOT-[A-Z]\\d{4}$'],
  ['(a|aa){1,100}'],
  ['a?a?a?a?a?a?a?a?a?'],
  ['(ab)*c'],
  ['a+|b'],
  ['a+?'],
  // Defined differently by the two engines.
  ['a.c'],
  ['\\s'],
  ['[^,]'],
  ['\\D'],
  ['\\bword'],
  ['abc', 'i'],
  ['^line', 'm'],
  ['€{2}'],
  ['[é]'],
  // Not RE2's or not plain groups.
  ['(?=a)'],
  ['(?<year>\\d{4})'],
  ['a{2'],
];

const TEXTS = ['LOT-K4821 and LOT-A12345', 'SO-12345', 'NavNCLRecordNotFoundException', '30.11.2026', 'AB-1234', 'AB1234x', 'ab_x9 cd-yz', '😀😀ab', 'a\r\nb', '\u00a0ab', 'xxx', '', 'ba'];

/** Every match of a pattern from position 0 on, as JSONata's $match walks them, through RE2's program. */
function re2Matches(pattern: RegExp, text: string): unknown[] {
  const program = RE2JS.compile(RE2JS.translateRegExp(pattern));
  const found: unknown[] = [];
  const matcher = program.matcher(text);
  let from = 0;
  while (from <= text.length && matcher.find(from)) {
    const groups = Array.from({ length: matcher.groupCount() + 1 }, (_, group) => matcher.group(group) ?? undefined);
    found.push([matcher.start(), ...groups]);
    from = matcher.end() === matcher.start() ? matcher.end() + 1 : matcher.end();
  }
  return found;
}

function nativeMatches(regex: RegExp, text: string): unknown[] {
  const found: unknown[] = [];
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    found.push([match.index, ...match]);
    if (match[0] === '') regex.lastIndex += 1;
  }
  return found;
}

describe('patterns that run on JavaScript\'s RegExp (bounded, same answers as RE2)', () => {
  it('takes the bounded patterns of plain characters, ASCII classes, \\d, \\w and groups', () => {
    for (const source of NATIVE) expect(nativeEquivalent(literal(source)), source).toBeInstanceOf(RegExp);
  });

  it('leaves to RE2 what can backtrack without bound, what the engines define differently, and flags other than g', () => {
    for (const [source, flags] of RE2_ONLY) expect(nativeEquivalent(literal(source, flags)), `/${source}/${flags ?? ''}`).toBeUndefined();
  });

  it('finds the same matches, groups and positions as RE2 on every text', () => {
    for (const source of NATIVE) {
      const pattern = literal(source);
      const native = nativeEquivalent(pattern) as RegExp;
      for (const text of TEXTS) expect(nativeMatches(native, text), `/${source}/ on ${JSON.stringify(text)}`).toEqual(re2Matches(pattern, text));
    }
  });
});
