import { CHECK_EVERY, drive, isFunction, refuseLongList, andThen, type Focus } from './guarded-slices';

/**
 * `$keys` and `$merge` in slices (guarded-slices.ts). JSONata's own walk every key of every object in
 * one step: `$keys` of a million objects (the matches of a `$match`) blocked every request for 1.4 s,
 * `$merge` of a million one-key objects for 3.2 s, `$keys` of two objects of a million keys for 4 s.
 * Same results, key order included (the keys of a list are those of one object that collects them, so
 * JavaScript's own order: index-like names first).
 *
 * What no slicing reaches: listing the keys of one object is one call of the JavaScript engine
 * (Object.keys), about 0.6 s per million keys on a busy machine; every JSONata function that walks an
 * object's keys ($keys, $merge, $spread, $each, $sift, $string) pays it once per object.
 */

/** JSONata's utils.keys: the own enumerable names of an object, none for anything else. */
function ownKeys(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value) : [];
}

/** The names `$keys` gives for one value: an object's own, a list's (nested lists too) collected in one object. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) {
    const all = Object.create(null) as Record<string, true>;
    for (const item of value) for (const key of keysOf(item)) all[key] = true;
    return Object.keys(all);
  }
  return value !== null && typeof value === 'object' && !isFunction(value) ? ownKeys(value) : [];
}

/** $keys(value): the names of an object, or of all the objects of a list. */
function keys(this: Focus, value: unknown): unknown {
  const result = this.createSequence ? this.createSequence() : [];
  if (Array.isArray(value)) {
    refuseLongList(this, '$keys', value);
    const all = Object.create(null) as Record<string, true>;
    const collect = eachKey(value, keysOf, (_item, key) => {
      all[key] = true;
    });
    return andThen(drive(this, collect, () => Object.keys(all)), (collected) => pushAll(this, result, collected));
  }
  return pushAll(this, result, keysOf(value));
}

/** The names into the sequence (whose push checks the sequence limit), a slice at a time. */
function pushAll(focus: Focus, result: unknown[], names: readonly string[]): unknown {
  let index = 0;
  const work = (): boolean => {
    const end = Math.min(names.length, index + CHECK_EVERY);
    for (; index < end; index++) result.push(names[index]);
    return index >= names.length;
  };
  return drive(focus, work, () => result);
}

/** $merge(objects): one object with the properties of all, later ones winning; a slice of keys at a time. */
function merge(this: Focus, objects: readonly unknown[] | undefined): unknown {
  if (objects === undefined) return undefined;
  refuseLongList(this, '$merge', objects);
  const result = Object.create(null) as Record<string, unknown>;
  const work = eachKey(objects, ownKeys, (object, key) => {
    result[key] = (object as Record<string, unknown>)[key];
  });
  return drive(this, work, () => result);
}

/**
 * Work for drive(): `visit` every key (as `keysOf` lists them) of every item, CHECK_EVERY keys at a time,
 * so that one object of a million keys is sliced as well as a million objects.
 */
function eachKey(items: readonly unknown[], keysOf: (item: unknown) => string[], visit: (item: unknown, key: string) => void): () => boolean {
  let item = 0;
  let names: string[] | undefined;
  let index = 0;
  return () => {
    for (let steps = 0; steps < CHECK_EVERY; steps++) {
      if (item >= items.length) return true;
      names ??= keysOf(items[item]);
      if (index < names.length) {
        visit(items[item], names[index++]);
        continue;
      }
      item += 1;
      names = undefined;
      index = 0;
    }
    return item >= items.length;
  };
}

export const OBJECT_BUILTINS = [
  { name: 'keys', signature: '<x-:a<s>>', implementation: keys },
  { name: 'merge', signature: '<a<o>:o>', implementation: merge },
] as const;
