/**
 * Splits `literal {expression} literal` into parts. Braces inside an expression (JSONata object
 * constructors) and inside its quoted strings are balanced, so `{ {"a": 1}.a }` is one placeholder.
 */
export type TemplatePiece = { literal: string } | { expression: string; offset: number };

export class TemplateSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

export function splitTemplate(text: string): TemplatePiece[] {
  const pieces: TemplatePiece[] = [];
  let literal = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === '}') throw new TemplateSyntaxError('a "}" without its opening "{"', index);
    if (char !== '{') {
      literal += char;
      index += 1;
      continue;
    }
    const start = index + 1;
    let depth = 1;
    let quote: string | null = null;
    let cursor = start;
    for (; cursor < text.length && depth > 0; cursor += 1) {
      const c = text[cursor];
      if (quote) {
        if (c === '\\') cursor += 1;
        else if (c === quote) quote = null;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '{') depth += 1;
      else if (c === '}') depth -= 1;
    }
    if (depth > 0) throw new TemplateSyntaxError('a "{" placeholder is never closed with "}"', index);
    const expression = text.slice(start, cursor - 1);
    if (expression.trim() === '') throw new TemplateSyntaxError('an empty {} placeholder; put an expression inside, e.g. {input.Code}', index);
    if (literal) pieces.push({ literal });
    literal = '';
    pieces.push({ expression, offset: start });
    index = cursor;
  }
  if (literal) pieces.push({ literal });
  return pieces;
}
