import { listedOf, type Validator } from '../contract/schema-registry';
import type { Problem } from '../errors';

/**
 * `onInvalidRecord: skip`: the records of a list answer that fail the contract check are left out, each
 * reported with its problems, and the rest is answered. The check may stop describing problems at its
 * cap, so the list is checked again after each removal; every round removes at least one record, so the
 * loop ends. A problem of the list itself (not of one record) still fails the answer.
 */

/** A record left out of a list answer: where it was in the list the output built, its number, and why. */
export interface SkippedRecord {
  readonly index: number;
  /** The record's `number` (a work order's or an item's), when it has one. */
  readonly number?: string;
  readonly problems: readonly Problem[];
}

const RECORD_PATH = /^\/(\d+)(\/.*)?$/;

function numberOf(record: unknown): string | undefined {
  const value = typeof record === 'object' && record !== null ? (record as { number?: unknown }).number : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

export async function withoutInvalidRecords(list: readonly unknown[], check: Validator): Promise<{ kept: unknown[]; skipped: SkippedRecord[]; problems: readonly Problem[] }> {
  let kept = [...list];
  let positions = list.map((_record, index) => index);
  const skipped: SkippedRecord[] = [];
  for (;;) {
    const problems = await check.inSlices(kept);
    if (problems.length === 0) break;
    const byRecord = new Map<number, Problem[]>();
    // The closing "… and N more" note belongs to no record: those records are found by the next check.
    for (const problem of listedOf(problems)) {
      const match = RECORD_PATH.exec(problem.path);
      if (!match) return { kept, skipped, problems };
      const index = Number(match[1]);
      byRecord.set(index, [...(byRecord.get(index) ?? []), { path: match[2] ?? '/', message: problem.message }]);
    }
    if (byRecord.size === 0) return { kept, skipped, problems };
    for (const [index, recordProblems] of byRecord) skipped.push({ index: positions[index], number: numberOf(kept[index]), problems: recordProblems });
    positions = positions.filter((_position, index) => !byRecord.has(index));
    kept = kept.filter((_record, index) => !byRecord.has(index));
  }
  return { kept, skipped: skipped.sort((a, b) => a.index - b.index), problems: [] };
}
