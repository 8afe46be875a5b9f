import { TimeSlices } from '../time-slices';
import { ExpressionLimitError } from './guard';
import { currentClock, pauseEvaluation } from './own-time';

/**
 * Output expressions that map a long list element by element — `[input.( … )]`, the export's shape —
 * evaluated a slice of the list at a time, with turns of the event loop in between: the synchronous
 * fast path would otherwise run through 50,000 elements in one go (and give up after 50 ms on a busy
 * machine, leaving the whole list to the interpreter). The answer is the same: such an expression
 * sees each element on its own, so the list of the results of the slices, joined, is its result.
 *
 * Which expressions qualify, by their syntax tree: a list constructor `[ … ]` around one path whose
 * first step is a bare field name (the list), optionally after definitions of the mapping's functions.
 * Nothing in it may look past the element it is given: no `$$` (the whole input), no `%` (parent), no
 * positional or context bindings (`#`, `@`), no sort, filter or grouping over the whole list, and none
 * of `$eval` (reads the whole input), `$now` and `$millis` (one instant per evaluation).
 */

/** Elements evaluated at a time. */
const SLICE_ELEMENTS = 256;

const WHOLE_EVALUATION_FUNCTIONS = new Set(['eval', 'now', 'millis']);

interface Node {
  readonly type?: string;
  readonly value?: unknown;
  readonly steps?: readonly Node[];
  readonly expressions?: readonly Node[];
  readonly [key: string]: unknown;
}

const PER_LIST_KEYS = ['stages', 'predicate', 'group', 'focus', 'index', 'tuple', 'keepArray', 'ancestor', 'seekingParent'];

/** True when nothing in the tree reaches beyond the value it is evaluated against. */
function elementLocal(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object' || node instanceof RegExp) continue;
    const { type, value } = node as Node;
    if (type === 'parent' || type === 'sort' || (type === 'variable' && value === '$')) return false;
    if ('focus' in node || 'index' in node || 'tuple' in node || 'ancestor' in node) return false;
    if (type === 'function' || type === 'partial') {
      const procedure = (node as { procedure?: Node }).procedure;
      if (procedure?.type === 'variable' && WHOLE_EVALUATION_FUNCTIONS.has(String(procedure.value))) return false;
    }
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') pending.push(child);
  }
  return true;
}

function isFunctionDefinition(node: Node): boolean {
  return node.type === 'bind' && (node.rhs as Node | undefined)?.type === 'lambda';
}

/** The field whose list the expression maps element by element, or undefined when it does not qualify. */
export function slicedListField(ast: unknown): string | undefined {
  let root = ast as Node;
  if (root.type === 'block' && root.expressions && root.expressions.length > 0) {
    const definitions = root.expressions.slice(0, -1);
    if (!definitions.every(isFunctionDefinition)) return undefined;
    root = root.expressions[root.expressions.length - 1];
  }
  if (root.type !== 'unary' || root.value !== '[' || root.expressions?.length !== 1) return undefined;
  const path = root.expressions[0];
  if (path.type !== 'path' || !path.steps || path.steps.length < 2) return undefined;
  const [first] = path.steps;
  if (first.type !== 'name' || typeof first.value !== 'string') return undefined;
  if (PER_LIST_KEYS.some((key) => key in path || path.steps!.some((step) => key in step))) return undefined;
  return elementLocal(ast) ? first.value : undefined;
}

export interface SliceLimits {
  readonly timeoutMs: number;
  readonly maxSequence: number;
}

/** The list at `field` of `input`, when it is long enough to be worth slicing. */
export function longListAt(input: unknown, field: string): readonly unknown[] | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const list = (input as Record<string, unknown>)[field];
  return Array.isArray(list) && list.length > SLICE_ELEMENTS ? list : undefined;
}

/**
 * `evaluate` (one evaluation with the time it may still take) over `input` with its `field` list cut
 * into slices. The expression's limits hold for the whole: its time limit for all slices together,
 * its longest list for the joined result.
 */
export async function evaluateInSlices(
  evaluate: (input: unknown) => Promise<unknown>,
  input: Record<string, unknown>,
  field: string,
  list: readonly unknown[],
  limits: SliceLimits,
): Promise<unknown[]> {
  const clock = currentClock();
  const slices = new TimeSlices();
  const result: unknown[] = [];
  for (let start = 0; start < list.length; start += SLICE_ELEMENTS) {
    clock?.check();
    const part = await evaluate({ ...input, [field]: list.slice(start, start + SLICE_ELEMENTS) });
    // A list constructor always gives a list.
    for (const value of part as unknown[]) result.push(value);
    if (limits.maxSequence > 0 && result.length > limits.maxSequence) {
      throw new ExpressionLimitError('list', `the expression built a list of ${result.length} items; the limit is ${limits.maxSequence}`);
    }
    if (slices.due()) await slices.turn(pauseEvaluation);
  }
  return result;
}
