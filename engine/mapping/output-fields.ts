import jsonata from 'jsonata';
import { LRUCache } from 'lru-cache';
import { objectPairs, type OutputNode } from './parse-tree';

/**
 * Where an operation's output expression builds each field of the data: the keys of its object
 * constructors (`{ "number": ..., "items": lines.{ "qty": ... } }`), found in JSONata's parse tree, so
 * that a contract check that refuses `data/items/3/qty` can name the line that wrote "qty".
 */
export interface OutputField {
  /** The field's keys from the top of the data, without list indexes: ["items", "qty"]. */
  readonly keys: readonly string[];
  /** Offset of the key in the expression text. */
  readonly offset: number;
}

/** Deeper than any hand-written output; the walk stops there rather than follow a hostile tree. */
const MAX_DEPTH = 40;

function collect(node: OutputNode | undefined, keys: readonly string[], depth: number, into: OutputField[]): void {
  if (!node || depth > MAX_DEPTH) return;
  const next = (child: OutputNode | undefined, at: readonly string[] = keys) => collect(child, at, depth + 1, into);
  if (node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs)) {
    for (const [key, value] of objectPairs(node)) {
      if (key.type !== 'string' || typeof key.value !== 'string' || typeof key.position !== 'number') continue;
      // JSONata records the position just after the closing quote.
      into.push({ keys: [...keys, key.value], offset: Math.max(0, key.position - key.value.length - 2) });
      next(value, [...keys, key.value]);
    }
    return;
  }
  if (node.type === 'unary' && node.value === '[') for (const element of node.expressions ?? []) next(element);
  // What a path, a block or a condition gives is its last step, its last expression, or either branch.
  if (node.type === 'path') next(node.steps?.at(-1));
  if (node.type === 'block') next(node.expressions?.at(-1));
  if (node.type === 'condition') {
    next(node.then);
    next(node.else);
  }
}

/**
 * Fields by output text: mappings made from one template repeat the same outputs, and parsing each
 * again cost 0.65 ms of every example-sized file's load (200 files: 130 ms). Bounded like the
 * expression cache (compile.ts); the lists are never changed by their readers.
 */
const FIELDS = new LRUCache<string, readonly OutputField[]>({ max: 512 });

/** The fields an output expression builds; none when it builds no object literally (it passes an answer on). */
export function outputFields(text: string): readonly OutputField[] {
  const known = FIELDS.get(text);
  if (known) return known;
  const fields: OutputField[] = [];
  try {
    collect(jsonata(text).ast() as OutputNode, [], 0, fields);
  } catch {
    // The expression was compiled before this is asked: a parse error here would be reported already.
  }
  FIELDS.set(text, fields);
  return fields;
}

/** The field that best explains a problem at `path` (`/items/3/qty`): the one with the most of its keys. */
export function fieldFor<T extends { readonly keys: readonly string[] }>(fields: readonly T[], path: string): T | undefined {
  const keys = path.split('/').filter((segment) => segment !== '' && !/^\d+$/.test(segment));
  let best: T | undefined;
  for (const field of fields) {
    const matches = field.keys.length <= keys.length && field.keys.every((key, index) => key === keys[index]);
    if (matches && (!best || field.keys.length > best.keys.length)) best = field;
  }
  return best;
}
