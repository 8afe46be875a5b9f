import jsonata from 'jsonata';
import type { MappingIssueCode } from '../errors';
import { dateFormatProblem, timeZoneProblem } from '../expressions/dates';
import { callsOf, type TreeNode } from './parse-tree';

/**
 * `$isoDateTime(value, format, zone)` with a format or zone written as a literal: checked when the
 * mapping loads, at the literal's place, rather than failing every request that reaches it. A format
 * or zone computed at run time (`plant.timeZone`) is checked per request, as a failed transform.
 */
export interface ArgumentProblem {
  readonly code: Extract<MappingIssueCode, 'DATE_FORMAT_UNKNOWN' | 'TIME_ZONE_UNKNOWN'>;
  readonly message: string;
  /** 0-based offset of the literal (its opening quote) inside the expression text. */
  readonly offset: number;
}

const CHECKS = [
  { index: 1, code: 'DATE_FORMAT_UNKNOWN', problem: dateFormatProblem },
  { index: 2, code: 'TIME_ZONE_UNKNOWN', problem: timeZoneProblem },
] as const;

/** Where a string literal starts: JSONata records the position just after its closing quote. */
function startOf(text: string, node: TreeNode): number {
  const end = node.position ?? 0;
  const found = text.lastIndexOf(String(node.value), end);
  return Math.max(0, found - 1);
}

/** Problems of the literal formats and zones given to $isoDateTime in `text` (which compiles). */
export function dateArgumentProblems(text: string, parsed?: unknown): ArgumentProblem[] {
  if (!text.includes('isoDateTime')) return [];
  const problems: ArgumentProblem[] = [];
  for (const call of callsOf(parsed ?? jsonata(text).ast(), 'isoDateTime')) {
    for (const check of CHECKS) {
      const argument = call.arguments?.[check.index];
      const message = argument?.type === 'string' && typeof argument.value === 'string' ? check.problem(argument.value) : undefined;
      if (message && argument) problems.push({ code: check.code, message, offset: startOf(text, argument) });
    }
  }
  return problems;
}
