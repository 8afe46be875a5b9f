import { describe, expect, it } from 'vitest';
import { splitTemplate, TemplateSyntaxError } from './templates';

describe('splitTemplate', () => {
  it('splits literal text and placeholders, with offsets', () => {
    expect(splitTemplate('/orders/{input.Code}/lines')).toEqual([
      { literal: '/orders/' },
      { expression: 'input.Code', offset: 9 },
      { literal: '/lines' },
    ]);
  });

  it('keeps JSONata braces and quoted braces inside one placeholder', () => {
    expect(splitTemplate('{ {"a": "}"}.a }')).toEqual([{ expression: ' {"a": "}"}.a ', offset: 1 }]);
  });

  it('refuses unclosed, stray and empty placeholders with the offset', () => {
    expect(() => splitTemplate('/a/{input.x')).toThrow(TemplateSyntaxError);
    expect(() => splitTemplate('/a/}')).toThrow(/without its opening/);
    expect(() => splitTemplate('/a/{ }')).toThrow(/empty/);
    try {
      splitTemplate('/abc/{x');
    } catch (error) {
      expect((error as TemplateSyntaxError).offset).toBe(5);
    }
  });
});
