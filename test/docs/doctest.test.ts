import { describe, expect, it } from 'vitest';
import { printed, shownPattern } from './doctest';

/** The placeholders of the doctests (test/docs/doctest.ts): each stands for what it says, and no more. */
describe('doctest placeholders', () => {
  const matches = (shown: string, output: string) => shownPattern(shown).test(printed(output));

  it('<time>, <id>, <port>, <n>, <duration> stand for one value of their kind', () => {
    expect(matches('at <time> id <id> on :<port>, <n> passed in <duration>\n', 'at 2026-11-25T19:31:18.123Z id 3f0c9a2e-1 on :39157, 52 passed in 1.2 s')).toBe(true);
    expect(matches('at <time>\n', 'at 19:31:18')).toBe(true);
    expect(matches('id <id>\n', 'id two words')).toBe(false);
    expect(matches(':<port>\n', ':80a')).toBe(false);
    expect(matches('<n> passed\n', 'many passed')).toBe(false);
  });

  it('… alone on a line stands for any lines or none; inside a line for any text on it; the rest is literal', () => {
    const shown = 'first\n  …\nlast (1 file)\n';
    expect(matches(shown, 'first\nlast (1 file)\n')).toBe(true);
    expect(matches(shown, 'first\na\nb\n\nlast (1 file)\n')).toBe(true);
    expect(matches(shown, 'first\nlast (2 files)\n')).toBe(false);
    expect(matches('ok  … warnings\n', 'ok  19 of 19 routes mapped, 2 warnings')).toBe(true);
    expect(matches('ok  … warnings\n', 'ok\n2 warnings')).toBe(false);
    expect(matches('a.b\n', 'axb')).toBe(false);
  });

  it('trailing blanks and trailing empty lines do not count; a missing or extra line does', () => {
    expect(matches('one\ntwo\n', 'one  \ntwo\n\n\n')).toBe(true);
    expect(matches('one\ntwo\n', 'one\n')).toBe(false);
    expect(matches('one\n', 'one\ntwo\n')).toBe(false);
  });
});
