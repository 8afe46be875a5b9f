/**
 * Test expectations are partial: an expected object names only the fields that matter, and every
 * field it names must match. Lists match element by element and must have the same length, so an
 * expected `[]` still means "empty". Mismatches come back as paths, for a readable diff.
 */
export interface Mismatch {
  readonly path: string;
  readonly expected: unknown;
  readonly actual: unknown;
  readonly note?: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

export function partialMatch(expected: unknown, actual: unknown, path: string): Mismatch[] {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return [{ path, expected, actual, note: 'expected an object' }];
    return Object.entries(expected).flatMap(([key, value]) => {
      if (!(key in actual) || actual[key] === undefined) return [{ path: join(path, key), expected: value, actual: undefined, note: 'missing' }];
      return partialMatch(value, actual[key], join(path, key));
    });
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [{ path, expected, actual, note: 'expected a list' }];
    if (actual.length !== expected.length) return [{ path, expected, actual, note: `expected ${expected.length} element(s), got ${actual.length}` }];
    return expected.flatMap((value, index) => partialMatch(value, actual[index], join(path, index)));
  }
  return Object.is(expected, actual) ? [] : [{ path, expected, actual }];
}

/** Compact JSON for one diff line; long values are cut so the line stays readable. */
export function shortJson(value: unknown, max = 160): string {
  if (value === undefined) return '(nothing)';
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}
