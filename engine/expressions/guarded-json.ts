import { textTooLong } from './guard';
import { CHECK_EVERY, drive, isFunction, isNumeric, type Focus } from './guarded-slices';

/**
 * `$string` and `$clone`, written out in slices (guarded-slices.ts). JSONata's `$string` is one
 * JSON.stringify with a JavaScript replacer (5,000,000 numbers: 1.5 s in one block), its `$clone`
 * JSON.parse of that text (1,000,000 small objects: about 3 s in two blocks), and the `&` operator
 * writes its operands with the same `$string` (compile.ts routes them to this one).
 */

// ---------------------------------------------------------------------------------------------- $string

/** JSONata's replacer for $string: numbers to 15 significant digits, functions as "". */
function replace(value: unknown): unknown {
  if (value !== undefined && value !== null && isNumeric(value)) {
    return !Number.isInteger(value) ? Number((value as number).toPrecision(15)) : value;
  }
  return value && isFunction(value) ? '' : value;
}

/** What JSON.stringify with JSONata's replacer sees of a property: its toJSON(key), then replace(). */
function jsonValue(key: string, raw: unknown): unknown {
  let value = raw;
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, key);
  }
  return replace(value);
}

interface Container {
  readonly value: object;
  /** Object.keys of an object; undefined for an array. */
  readonly keys: readonly string[] | undefined;
  readonly length: number;
  index: number;
  /** The entries written so far, joined as they come (V8 keeps the joins as ropes: no one long join at the end). */
  text: string;
  entries: number;
  readonly indent: string;
  readonly stepback: string;
}

/**
 * JSON.stringify(value, replacer, gap) as the ECMAScript algorithm writes it (SerializeJSONProperty,
 * SerializeJSONObject, SerializeJSONArray), on an explicit stack so that it can stop between values.
 */
function serializer(root: unknown, gap: string, maxLength: number): { work: () => boolean; result: () => string | undefined } {
  const stack: Container[] = [];
  let written = 0;
  let answer: string | undefined;
  let done = false;
  /** A value's text, or a container to descend into. */
  const property = (holder: object, key: string, raw: unknown, indent: string): string | Container | undefined => {
    const value = jsonValue(key, raw);
    if (value instanceof Number || value instanceof String || value instanceof Boolean || typeof value === 'bigint' || typeof value === 'symbol') {
      // Rare wrappers: JSON.stringify itself writes them (and throws for a BigInt).
      return JSON.stringify(value);
    }
    if (typeof value === 'string' || typeof value === 'number') {
      const text = typeof value === 'string' ? JSON.stringify(value) : Number.isFinite(value) ? String(value) : 'null';
      // What the values and keys alone add up to, never more than the whole text: past the limit, stop now.
      written += text.length + key.length;
      if (written > maxLength) throw textTooLong(written, maxLength);
      return text;
    }
    if (value === null) return 'null';
    if (value === true) return 'true';
    if (value === false) return 'false';
    if (typeof value === 'object') {
      if (stack.some((open) => open.value === value)) throw new TypeError('Converting circular structure to JSON');
      const keys = Array.isArray(value) ? undefined : Object.keys(value);
      return { value, keys, length: keys ? keys.length : (value as unknown[]).length, index: 0, text: '', entries: 0, indent: indent + gap, stepback: indent };
    }
    return undefined;
  };
  const close = (container: Container): string => {
    const [open, end] = container.keys ? ['{', '}'] : ['[', ']'];
    if (container.entries === 0) return open + end;
    if (gap === '') return open + container.text + end;
    return `${open}\n${container.indent}${container.text}\n${container.stepback}${end}`;
  };
  /** Hands a finished text to the container it belongs to (or makes it the answer). */
  const deliver = (text: string | undefined, key: string | undefined): void => {
    const parent = stack[stack.length - 1];
    if (!parent) {
      answer = text;
      done = true;
      return;
    }
    const entry = !parent.keys ? (text ?? 'null') : text === undefined ? undefined : `${JSON.stringify(key)}:${gap ? ' ' : ''}${text}`;
    if (entry === undefined) return;
    parent.text += (parent.entries++ === 0 ? '' : gap ? `,\n${parent.indent}` : ',') + entry;
  };
  const start = property({ '': root }, '', root, '');
  if (typeof start === 'object') stack.push(start);
  else deliver(start, '');
  const work = (): boolean => {
    for (let steps = 0; !done && steps < CHECK_EVERY; steps++) {
      const container = stack[stack.length - 1];
      if (container.index >= container.length) {
        stack.pop();
        const text = close(container);
        const parent = stack[stack.length - 1];
        deliver(text, parent?.keys ? parent.keys[parent.index - 1] : undefined);
        continue;
      }
      const key = container.keys ? container.keys[container.index] : String(container.index);
      container.index += 1;
      const item = property(container.value, key, (container.value as Record<string, unknown>)[key], container.indent);
      if (typeof item === 'object') stack.push(item);
      else deliver(item, key);
    }
    return done;
  };
  return { work, result: () => answer };
}

/** $string(value, prettify?): JSONata's $string, written out in slices and refused past the text limit. */
function string(this: Focus | undefined, value: unknown, prettify = false): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  const limit = this?.options?.maxTextLength;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw { code: 'D3001', value, stack: new Error().stack };
    // `$string(qty)` on every line: what JSON.stringify writes of a finite number, without its call.
    const text = String(replace(value));
    if (typeof limit !== 'number' || limit <= 0 || text.length <= limit) return text;
  }
  if (isFunction(value)) return '';
  const root = Array.isArray(value) && (value as { outerWrapper?: unknown }).outerWrapper ? (value as unknown[])[0] : value;
  if (typeof root === 'number' || typeof root === 'boolean' || root === null) {
    // One short text, nothing to slice (`$string(docId)` on every order: 200 ns through the serializer, 40 here).
    const text = JSON.stringify(replace(root)) as string;
    if (typeof limit !== 'number' || limit <= 0 || text.length <= limit) return text;
  }
  const { work, result } = serializer(root, prettify ? '  ' : '', typeof limit === 'number' && limit > 0 ? limit : Infinity);
  return drive(this, work, result);
}

// ---------------------------------------------------------------------------------------------- $clone

interface Copy {
  readonly value: object;
  readonly keys: readonly string[] | undefined;
  readonly length: number;
  index: number;
  readonly copy: unknown[] | Record<string, unknown>;
}

/** Marks a property JSON would leave out of an object (undefined, a symbol); null in an array. */
const OMITTED = Symbol('omitted');

/**
 * JSON.parse(JSON.stringify(value, replacer)) without the text: the same values (numbers rounded by the
 * replacer, non-finite ones null, functions "", undefined left out of objects and null in arrays), built
 * on an explicit stack so that it can stop between values.
 */
function cloner(root: unknown): { work: () => boolean; result: () => unknown } {
  const stack: Copy[] = [];
  const open = (key: string, raw: unknown): unknown => {
    const value = jsonValue(key, raw);
    if (value instanceof Number || value instanceof String || value instanceof Boolean || typeof value === 'bigint' || typeof value === 'symbol' || value === undefined) {
      // Rare wrappers (and a BigInt, which throws): JSON itself, on a small value.
      const text = JSON.stringify(value) as string | undefined;
      return text === undefined ? OMITTED : (JSON.parse(text) as unknown);
    }
    if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null;
    if (value === null || typeof value !== 'object') return value;
    if (stack.some((copy) => copy.value === value)) throw new TypeError('Converting circular structure to JSON');
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    const copy: Copy = { value, keys, length: keys ? keys.length : (value as unknown[]).length, index: 0, copy: keys ? {} : [] };
    stack.push(copy);
    return copy.copy;
  };
  const place = (parent: Copy, key: string, value: unknown): void => {
    if (!parent.keys) (parent.copy as unknown[]).push(value === OMITTED ? null : value);
    else if (value !== OMITTED) Object.defineProperty(parent.copy, key, { value, writable: true, enumerable: true, configurable: true });
  };
  const answer = open('', root);
  let done = stack.length === 0;
  const work = (): boolean => {
    for (let steps = 0; !done && steps < CHECK_EVERY; steps++) {
      const parent = stack[stack.length - 1];
      if (parent.index >= parent.length) {
        stack.pop();
        done = stack.length === 0;
        continue;
      }
      const key = parent.keys ? parent.keys[parent.index] : String(parent.index);
      parent.index += 1;
      // A container is placed empty and filled in later: its place among its siblings is kept.
      place(parent, key, open(key, (parent.value as Record<string, unknown>)[key]));
    }
    return done;
  };
  return { work, result: () => (answer === OMITTED ? undefined : answer) };
}

/** $clone(value): JSONata's (a copy through JSON), in slices. */
function clone(this: Focus | undefined, value: unknown): unknown {
  if (value === undefined) return undefined;
  const { work, result } = cloner(value);
  return drive(this, work, result);
}

export const JSON_BUILTINS = [
  { name: 'string', signature: '<x-b?:s>', implementation: string },
  { name: 'clone', signature: '<(oa)-:o>', implementation: clone },
] as const;
