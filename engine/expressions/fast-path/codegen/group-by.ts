import { mayBind } from '../paths';
import { FALLBACK, type Run } from '../runtime';
import type { AstNode } from '../subset';
import { textLiteral } from './literals';
import { TICK, type Unit, type Writer } from './unit';

/**
 * Grouping `{ key: value, ... }` written as code: after a value (`$mine{ product_uom[1]: $sum(qty) }`,
 * `$open^(line){ $string(line): quantity }`) and an object constructor over a list or with computed keys
 * (`{ $string(id): name }`). The generated form of paths.ts's evaluateGroup (jsonata 2.2.2's
 * evaluateGroupExpression) without tuple streams, which never reach it: the items in order, each pair's
 * key written inline with the item as its input, the groups in a Map, each group's value once (the
 * answer, an object, lists its keys in JSONata's order, integer-like ones first, whatever the order they
 * were set in; paths.ts's mayBind keeps that order unseen otherwise). The same errors hand the evaluation to the
 * interpreter: a key that is not a text (T1003), a function's marker key (D1013), a key two pairs give
 * (D1009), a group past the sequence limit (D2015).
 */

/** A group's items: the first, and the others in order (undefined while there is one). */
interface Group {
  readonly first: unknown;
  rest: unknown[] | undefined;
  /** The pair whose key made the group. */
  readonly at: number;
}

/**
 * What JSONata's repeated `fn.append(group, item)` gives the group's value, built once: the first item
 * alone, else a plain array of the items, an item that is an array adding its items (concat's answer
 * every time, which made one big group quadratic), with the sequence limit each append checks.
 */
function groupItems(run: Run, group: Group): unknown {
  const rest = group.rest as unknown[];
  let data = group.first;
  let joined: unknown[] | undefined;
  for (let index = 0; index < rest.length; index++) {
    const item = rest[index];
    // append(undefined, item) is the item; append(data, undefined) is data.
    if (joined === undefined && data === undefined) {
      data = item;
      continue;
    }
    if (item === undefined) continue;
    // The first append copies: concat of the data (a list as it is, anything else as a list of one).
    joined ??= Array.isArray(data) ? (data as unknown[]).concat() : [data];
    if (Array.isArray(item)) joined = joined.concat(item);
    else joined.push(item);
    if (joined.length > run.maxSequence) throw FALLBACK;
  }
  return joined ?? data;
}

/**
 * The groups by key, in a Map (a null-prototype object of many keys is a slow dictionary to fill and to
 * list): a new group, or the item added to the key's group (the pair that made it must be this one: D1009).
 */
function addToGroup(groups: Map<string, Group>, key: string, item: unknown, at: number): void {
  const group = groups.get(key);
  if (group === undefined) groups.set(key, { first: item, rest: undefined, at });
  else if (group.at !== at) throw FALLBACK;
  else (group.rest ??= []).push(item);
}

/** A key the grouping can use: a text other than a function's marker; undefined puts the item in no group. */
function groupKey(key: unknown): key is string {
  if (key === undefined) return false;
  if (typeof key !== 'string' || key === '_jsonata_lambda' || key === '_jsonata_function') throw FALLBACK;
  return true;
}

/** The helpers the generated grouping calls (codegen/helpers.ts hands them over with the others). */
export const GROUP_HELPERS = { addToGroup, groupItems, groupKey };

/**
 * The function `(value, frame, run)` that groups a value by the pairs of a `{...}` node (a group's
 * `lhs`, or an object constructor's). Each pair's key is written over the name `item`; the values are
 * functions of their own, called with the group's items as their input.
 */
export function groupFunction(pairs: readonly (readonly AstNode[])[], unit: Unit, { expression, functionFor }: Writer): string {
  const name = unit.name('G');
  const keys = pairs.map(([key], at) => {
    // A text literal other than a function's marker is a key as it is (`{ "number": no }` over a list).
    const text = key.type === 'string' && key.predicate === undefined && key.group === undefined && key.keepArray === undefined ? (key.value as string) : undefined;
    if (text !== undefined && text !== '_jsonata_lambda' && text !== '_jsonata_function') {
      return `addToGroup(groups, ${textLiteral(text)}, item, ${at});`;
    }
    // A key or a value that may bind a variable runs in a frame of its own, as the interpreter's (paths.ts's mayBind).
    const written = mayBind(key) ? `${functionFor(key, unit)}(item, new Frame(frame), run)` : expression(key, unit, 'item');
    return [`key = ${written};`, `if (groupKey(key)) addToGroup(groups, key, item, ${at});`].join('\n');
  });
  const values = pairs.map(([, value]) => `${functionFor(value, unit)}(data, ${mayBind(value) ? 'new Frame(frame)' : 'frame'}, run)`);
  // No pairs (`{}` over a list) make no group, whose value is never asked.
  const value = values.length === 1 ? values[0] : `(${[...values.map((call, at) => `group.at === ${at} ? ${call}`), 'undefined'].join(' : ')})`;
  unit.lines.push([
    `function ${name}(input, frame, run) {`,
    'let items;',
    'if (Array.isArray(input)) {',
    // The interpreter pushes into an empty input array; when that array is the caller's data, leave it alone.
    'if ((input.length === 0 && !isSequence(input)) || input.tupleStream) throw FALLBACK;',
    'items = input;',
    '} else items = createSequence(run, input);',
    'if (items.length === 0) items.push(undefined);',
    'const groups = new Map(); let key;',
    'for (let i = 0; i < items.length; i++) {',
    TICK,
    'const item = items[i];',
    ...keys,
    '}',
    'const r = emptyObject();',
    'for (const [k, group] of groups) {',
    'const data = group.rest === undefined ? group.first : groupItems(run, group);',
    `const x = ${value};`,
    'if (x !== undefined) r[k] = x;',
    '}',
    'return r;',
    '}',
  ].join('\n'));
  return name;
}
