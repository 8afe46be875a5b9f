/**
 * JSONata's isDeepEqual (jsonata 2.2.2, utils.js), unchanged: `=` and `!=` on the fast path and
 * `$distinct` decide equality with it, so both must agree with the interpreter to the letter.
 */
export function isDeepEqual(lhs: unknown, rhs: unknown): boolean {
  if (lhs === rhs) return true;
  if (typeof lhs === 'object' && typeof rhs === 'object' && lhs !== null && rhs !== null) {
    if (Array.isArray(lhs) && Array.isArray(rhs)) {
      if (lhs.length !== rhs.length) return false;
      for (let index = 0; index < lhs.length; index++) if (!isDeepEqual(lhs[index], rhs[index])) return false;
      return true;
    }
    const leftKeys = Object.getOwnPropertyNames(lhs).sort();
    const rightKeys = Object.getOwnPropertyNames(rhs).sort();
    if (leftKeys.length !== rightKeys.length) return false;
    for (let index = 0; index < leftKeys.length; index++) if (leftKeys[index] !== rightKeys[index]) return false;
    for (const key of leftKeys) if (!isDeepEqual((lhs as Record<string, unknown>)[key], (rhs as Record<string, unknown>)[key])) return false;
    return true;
  }
  return false;
}
