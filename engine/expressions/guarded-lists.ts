import { CHECK_EVERY, drive, refuseLongList, type Focus } from './guarded-slices';

/**
 * `$reverse`, `$shuffle` and `$zip`, in slices (guarded-slices.ts). JSONata's own are linear but one
 * step each: at five million items `$zip` of two lists blocked the event loop for about 1 s, `$shuffle`
 * 0.6 s and `$reverse` 0.2 s, all of it out of reach of the time limit. Same results (for `$shuffle`, the
 * same inside-out Fisher-Yates, so the same distribution), and a list longer than the sequence limit is
 * refused, as by the other guarded built-ins.
 */

/** `work` over the indices 0..length-1, CHECK_EVERY at a time. */
function overIndices<T>(focus: Focus, length: number, each: (index: number) => void, result: () => T): T | Promise<T> {
  let index = 0;
  const work = (): boolean => {
    const end = Math.min(length, index + CHECK_EVERY);
    for (; index < end; index++) each(index);
    return index >= length;
  };
  return drive(focus, work, result);
}

/** $reverse(list) */
function reverse(this: Focus, list: unknown[] | undefined): unknown {
  if (list === undefined) return undefined;
  if (list.length <= 1) return list;
  refuseLongList(this, '$reverse', list);
  const length = list.length;
  const result = new Array<unknown>(length);
  return overIndices(this, length, (index) => {
    result[length - index - 1] = list[index];
  }, () => result);
}

/** $shuffle(list): JSONata's inside-out Fisher-Yates. */
function shuffle(this: Focus, list: unknown[] | undefined): unknown {
  if (list === undefined) return undefined;
  if (list.length <= 1) return list;
  refuseLongList(this, '$shuffle', list);
  const result = new Array<unknown>(list.length);
  return overIndices(this, list.length, (index) => {
    const other = Math.floor(Math.random() * (index + 1));
    if (index !== other) result[index] = result[other];
    result[other] = list[index];
  }, () => result);
}

/** $zip(list, ...): tuples of the items at each index, as long as the shortest list. */
function zip(this: Focus, ...lists: unknown[]): unknown {
  const arrays = lists.map((list) => (Array.isArray(list) ? list : []));
  const shortest = arrays.reduce((short, list) => (list.length < short.length ? list : short), arrays[0] ?? []);
  refuseLongList(this, '$zip', shortest);
  const result: unknown[] = [];
  return overIndices(this, shortest.length, (index) => {
    result.push(arrays.map((list) => list[index]));
  }, () => result);
}

export const LIST_BUILTINS = [
  { name: 'reverse', signature: '<a:a>', implementation: reverse },
  { name: 'shuffle', signature: '<a:a>', implementation: shuffle },
  { name: 'zip', signature: '<a+>', implementation: zip },
] as const;
