import { generateEvaluator } from './codegen';
import { compileNode } from './compile-node';
import { ASYNC_FALLBACK, FALLBACK, Frame, createSequence, fastFunctionsReady, guardedPushFor, isAsyncImplementation, isFunctionValue, isSequence, type Run } from './runtime';
import { checkSubset, treeDepth, type AstNode } from './subset';

/**
 * A synchronous evaluator for expressions in the subset the mappings use (see subset.ts), built from the
 * same tree the interpreter evaluates. It answers `undefined` whenever the interpreter must run instead:
 * before the built-ins are fetched, for a binding that would hide a function (or is a function value other
 * than the engine's own JavaScript), and for anything that would be an error (the interpreter's rerun then
 * gives its own error, message and code included).
 */
export interface FastPath {
  evaluate(input: unknown, bindings: Record<string, unknown>): { value: unknown } | undefined;
  /** Set once the expression called an async built-in: from then on only the interpreter runs it. */
  readonly disabled: boolean;
  /** The generated function's source (codegen/), or undefined when the closures run it. */
  readonly generated?: { readonly source: string; readonly delegated: readonly string[] };
}

/** Why a tree is not run by the fast path (checkSubset's reason), for `dry-run --explain`. */
export interface OutsideFastPath {
  readonly outside: string;
}

export interface FastPathLimits {
  readonly timeoutMs: number;
  readonly maxDepth: number;
  readonly maxSequence: number;
  readonly maxTextLength: number;
}

/**
 * The fast path is synchronous: nothing else in the process runs while it does. An attempt that used
 * more CPU than this gives up and the interpreter, which lets other requests in (guard.ts), finishes the
 * evaluation with what is left of the time limit. Mapping expressions take well under a millisecond.
 * The slice is counted in the CPU time of the thread that runs it (checkClock), not on the wall clock:
 * on a busy machine the process is descheduled for tens of milliseconds at a time, and a wall-clock
 * slice then sent a 10 ms transform to an interpreter ten times slower (one evaluation in 25 on the
 * shared bench machine) although it had kept nobody waiting. The expression's own time limit stays on the wall clock, as the interpreter's.
 */
const FAST_PATH_SLICE_MS = 50;

export function buildFastPath(
  ast: unknown,
  constants: ReadonlyMap<string, unknown>,
  limits: FastPathLimits,
  reserved: ReadonlySet<string>,
  codegen: boolean,
): FastPath | OutsideFastPath {
  // A copy of its own: compile.ts rewrites the interpreter's tree after this (group-by.ts, order-by.ts), and parts are compiled on first use.
  const root = copyTree(ast) as AstNode;
  const verdict = checkSubset(root, limits.maxDepth, reserved);
  if (!verdict.supported) return { outside: verdict.reason ?? 'outside the subset' };
  // One function generated from the tree (codegen/), or the closures where code cannot be generated or is turned off.
  const generated = codegen ? generateEvaluator(root, verdict.lambdaNames) : undefined;
  const evaluate = generated?.evaluate ?? compileNode(root, verdict.lambdaNames);
  // The frame of the folded literal tables (the interpreter's `environment`, below each evaluation's own).
  const base = new Frame();
  for (const [name, value] of constants) base.vars[name] = value;
  // What the interpreter hands built-ins as `this.options` ($append checks `sequence` against it).
  const options = Object.freeze({ timeout: limits.timeoutMs, stack: limits.maxDepth, sequence: limits.maxSequence, maxTextLength: limits.maxTextLength });
  const hidden = (name: string): boolean => reserved.has(name);
  const rootDepth = treeDepth(root) + 1;
  let disabled = false;
  const guardedPush = guardedPushFor(limits.maxSequence);
  const evaluateFast = (input: unknown, bindings: Record<string, unknown>): { value: unknown } | undefined => {
    if (disabled || !fastFunctionsReady()) return undefined;
    const run: Run = {
      maxSequence: limits.maxSequence,
      maxTextLength: limits.maxTextLength,
      deadline: limits.timeoutMs > 0 ? Date.now() + limits.timeoutMs : 0,
      sliceMs: FAST_PATH_SLICE_MS,
      sliceEndCpuUs: 0,
      sliceStartedAt: 0,
      ticks: 0,
      depth: rootDepth,
      maxDepth: limits.maxDepth,
      functionsMade: false,
      guardedPush,
      // $toMillis reads the evaluation's time from its environment (a date without a year is this year's); $now and $millis answer it.
      focus: { options, createSequence: (...items: unknown[]) => createSequence(run, ...items), environment: { timestamp: new Date() } },
    };
    run.focus.run = run;
    const top = new Frame(base);
    for (const name of Object.keys(bindings)) {
      const value = bindings[name];
      if (hidden(name)) return undefined;
      if (isFunctionValue(value)) {
        // A JavaScript function the engine binds (`$secret`) is called as the interpreter calls it (apply's
        // plain-function branch, which hands a promise to the interpreter); a JSONata function value made
        // elsewhere, or an async function, is the interpreter's.
        if (typeof value !== 'function' || (value as { _jsonata_function?: unknown })._jsonata_function === true || isAsyncImplementation(value)) return undefined;
        run.functionsMade = true;
      }
      top.vars[name] = value;
    }
    top.vars.$ = input;
    try {
      let context = input;
      // As the interpreter does: a top-level array is one input, not a sequence of inputs.
      if (Array.isArray(input) && !isSequence(input)) {
        const wrapped = createSequence(run, input);
        wrapped.outerWrapper = true;
        context = wrapped;
      }
      const value = evaluate(context, top, run);
      // A function in the answer is one of ours, not the interpreter's lambda: the interpreter answers.
      if (run.functionsMade && holdsFunction(value, 0)) throw FALLBACK;
      return { value };
    } catch (error) {
      if (error === ASYNC_FALLBACK) disabled = true;
      return undefined;
    }
  };
  return {
    evaluate: evaluateFast,
    generated: generated && { source: generated.source, delegated: generated.delegated },
    get disabled() {
      return disabled;
    },
  };
}

/** A deep copy of JSONata's tree: its nodes and lists copied, anything else (a RegExp, a parsed signature) shared; shared nodes stay shared. */
function copyTree(value: unknown, copies = new Map<object, unknown>()): unknown {
  if (typeof value !== 'object' || value === null || value instanceof RegExp) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const list: unknown[] = [];
    copies.set(value, list);
    for (const item of value) list.push(copyTree(item, copies));
    return list;
  }
  // JSONata's nodes inherit from its parser's symbols: their own fields are the node.
  const copy: Record<string, unknown> = {};
  copies.set(value, copy);
  for (const [key, item] of Object.entries(value)) copy[key] = key === 'signature' ? item : copyTree(item, copies);
  return copy;
}

/** Whether a value holds a function value anywhere (bounded: past a depth the answer is yes, and the interpreter answers). */
function holdsFunction(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value === 'function';
  if (isFunctionValue(value) || depth > 100) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (holdsFunction(value[index], depth + 1)) return true;
    return false;
  }
  for (const key in value) if (holdsFunction((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}
