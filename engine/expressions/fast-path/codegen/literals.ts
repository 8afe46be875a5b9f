/**
 * How values of the parse tree are written into generated source. Nothing of the mapping's text is
 * ever written as code: a text (field name, string literal, variable name) becomes a JSON string
 * literal, whose only escapes JavaScript reads differently from JSON are U+2028 and U+2029 (line
 * terminators in older engines' string literals), written as escapes too.
 */
export function textLiteral(text: string): string {
  if (typeof text !== 'string') throw new TypeError('a text literal must be a string');
  return JSON.stringify(text).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A number of the tree; undefined when it has no plain literal (NaN, Infinity: the caller keeps it as a constant). */
export function numberLiteral(value: number): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  // Parenthesised: `- -1` and `x.-0` must not read as other tokens; -0 is not what String() writes.
  if (Object.is(value, -0)) return '(-0)';
  return value < 0 ? `(${String(value)})` : String(value);
}

/** true, false or null (the tree's `value` node). */
export function plainLiteral(value: unknown): string | undefined {
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (value === null) return 'null';
  return undefined;
}
