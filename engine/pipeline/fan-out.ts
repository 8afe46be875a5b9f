import pLimit from 'p-limit';
import type { ForEachSpec } from '../mapping/model';

/**
 * The units of a fan-out call (one per element, or one per chunk of elements) and running them with
 * a concurrency limit, keeping input order.
 */
export interface Unit {
  readonly index: number;
  readonly item?: unknown;
  readonly chunk?: readonly unknown[];
  /** How messages name the unit: `element 2 ("SO-1003")` or `chunk 1 (elements 50-99)`. */
  readonly describe: string;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function unitsOf(list: unknown, spec: ForEachSpec): Unit[] {
  const elements = list === undefined || list === null ? [] : Array.isArray(list) ? list : [list];
  // Named when a message needs it: the preview writes the element as JSON, which most units never need.
  if (spec.chunk === undefined) {
    return elements.map((item, index) => ({
      index,
      item,
      get describe() {
        return `element ${index} (${preview(item)})`;
      },
    }));
  }
  const units: Unit[] = [];
  for (let start = 0, index = 0; start < elements.length; start += spec.chunk, index += 1) {
    const chunk = elements.slice(start, start + spec.chunk);
    units.push({ index, chunk, describe: `chunk ${index} (elements ${start}-${start + chunk.length - 1})` });
  }
  return units;
}

/**
 * Runs `work` for every unit, at most `concurrency` at once. Once `stops` is true for a result, units
 * not yet started are not started (their slot stays undefined). Results are in input order.
 */
export async function runInOrder<T>(units: readonly Unit[], concurrency: number, work: (unit: Unit) => Promise<T>, stops: (result: T) => boolean): Promise<(T | undefined)[]> {
  const limit = pLimit(concurrency);
  let stopped = false;
  const settled = await Promise.allSettled(
    units.map((unit) =>
      limit(async () => {
        if (stopped) return undefined;
        try {
          const result = await work(unit);
          if (stops(result)) stopped = true;
          return result;
        } catch (error) {
          stopped = true;
          throw error;
        }
      }),
    ),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T | undefined>).value);
}
