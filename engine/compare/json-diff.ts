/**
 * The field-level difference of two JSON values: each place where they differ, as a JSON path with the
 * old and the new value. Pure; the shadow report shows it (and a replay of recorded requests can).
 * A list is compared element by element at the same index: a list whose length changed shows the
 * elements added or gone at its end.
 */
export interface FieldDifference {
  /** `$` for the whole value, `$.data.items[2].quantity` for a field inside. */
  readonly path: string;
  /** Undefined when the field is new. */
  readonly old?: unknown;
  /** Undefined when the field is gone. */
  readonly new?: unknown;
}

/** More differences than this in one answer are cut: a changed list of 5,000 orders says enough with its first. */
const DIFFERENCE_LIMIT = 50;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** The differences between `before` and `after`, at most `limit` of them, in the order of the fields. */
export function jsonDiff(before: unknown, after: unknown, limit = DIFFERENCE_LIMIT): FieldDifference[] {
  const found: FieldDifference[] = [];
  const visit = (old: unknown, now: unknown, path: string): void => {
    if (found.length >= limit || Object.is(old, now)) return;
    if (Array.isArray(old) && Array.isArray(now)) {
      for (let index = 0; index < Math.max(old.length, now.length); index += 1) {
        const at = `${path}[${index}]`;
        if (index >= old.length) found.push({ path: at, new: now[index] });
        else if (index >= now.length) found.push({ path: at, old: old[index] });
        else visit(old[index], now[index], at);
        if (found.length >= limit) return;
      }
      return;
    }
    if (isObject(old) && isObject(now)) {
      for (const key of new Set([...Object.keys(old), ...Object.keys(now)])) {
        const at = childPath(path, key);
        if (!(key in now)) found.push({ path: at, old: old[key] });
        else if (!(key in old)) found.push({ path: at, new: now[key] });
        else visit(old[key], now[key], at);
        if (found.length >= limit) return;
      }
      return;
    }
    found.push({ path, old, new: now });
  };
  visit(before, after, '$');
  return found.slice(0, limit);
}
