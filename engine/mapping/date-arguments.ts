import jsonata from 'jsonata';
import type { MappingIssueCode } from '../errors';
import { dateFormatProblem, timeZoneProblem } from '../expressions/dates';

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

interface Node {
  readonly type?: string;
  readonly value?: unknown;
  readonly position?: number;
  readonly procedure?: Node;
  readonly arguments?: readonly Node[];
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !(value instanceof RegExp);

const CHECKS = [
  { index: 1, code: 'DATE_FORMAT_UNKNOWN', problem: dateFormatProblem },
  { index: 2, code: 'TIME_ZONE_UNKNOWN', problem: timeZoneProblem },
] as const;

/** Where a string literal starts: JSONata records the position just after its closing quote. */
function startOf(text: string, node: Node): number {
  const end = node.position ?? 0;
  const found = text.lastIndexOf(String(node.value), end);
  return Math.max(0, found - 1);
}

/** Problems of the literal formats and zones given to $isoDateTime in `text` (which compiles). */
export function dateArgumentProblems(text: string, parsed?: unknown): ArgumentProblem[] {
  if (!text.includes('isoDateTime')) return [];
  const problems: ArgumentProblem[] = [];
  const seen = new WeakSet<object>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const element of value) visit(element);
      return;
    }
    if (!isNode(value) || seen.has(value)) return;
    seen.add(value);
    if (value.type === 'function' && value.procedure?.type === 'variable' && value.procedure.value === 'isoDateTime') {
      for (const check of CHECKS) {
        const argument = value.arguments?.[check.index];
        const message = argument?.type === 'string' && typeof argument.value === 'string' ? check.problem(argument.value) : undefined;
        if (message && argument) problems.push({ code: check.code, message, offset: startOf(text, argument) });
      }
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(parsed ?? jsonata(text).ast());
  return problems;
}
