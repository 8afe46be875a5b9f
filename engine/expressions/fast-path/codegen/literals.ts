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

/**
 * A field read `key` of the value named `input`, as an expression with fieldOf's and lookup's answers
 * (runtime.ts): the property is read with its literal key at the read's own place in the source, so
 * V8 keeps one inline cache per read instead of fieldOf's one keyed lookup for every field of the
 * mapping (about a tenth of a list transform). The quick answer holds for an own field of a plain
 * object that is not a function value; anything else (inherited, `__proto__` on an object from
 * Object.prototype, a lambda's fields, another prototype) goes to fieldOf. `t` is the generated
 * source's one scratch variable: it is read right after it is set, with no generated code between.
 */
export function fieldRead(input: string, key: string): string {
  const name = textLiteral(key);
  const quick = `(t = ${input}[${name}]) !== undefined && plainOwner(${input}) && ${input}._jsonata_function !== true && ${input}._jsonata_lambda !== true && hasOwn(${input}, ${name})`;
  const object = `(${quick} ? finish(t, false) : t === undefined ? undefined : slowField(${input}, ${name}))`;
  return `(${input} === null || typeof ${input} !== "object" ? undefined : Array.isArray(${input}) ? finish(lookup(run, ${input}, ${name}), false) : ${object})`;
}
