import type { Problem } from '../errors';

/**
 * Deepest nesting of objects and lists a request body may have (docs/results.md). The contract's
 * bodies nest a few levels; JSON.parse reads any depth, but what the engine does next with the value
 * (the schema check, storing it as an event, the journal) recurses: an extra field nested 50,000 deep
 * passed the schema and then failed to store ("Maximum call stack size exceeded"), answered
 * OperationFailed, which the platform resends for ever. Refused as invalid input instead.
 */
export const MAX_BODY_DEPTH = 100;

/** The problem of a JSON value nested deeper than MAX_BODY_DEPTH; walked without recursion (it would overflow too). */
export function tooDeep(value: unknown, what: string): Problem | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_BODY_DEPTH) return { path: 'body', message: `${what} is nested more than ${MAX_BODY_DEPTH} levels deep (objects and lists within each other); the engine accepts at most ${MAX_BODY_DEPTH}` };
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return undefined;
}
