import jsonata from 'jsonata';
import { HELPER_FUNCTIONS } from '../functions';
import { ownRegexOf } from '../regex';
import { GUARDED_BUILTINS } from '../guarded-builtins';
import type { CallSiteSignature, Signature } from './signature-plan';

/**
 * The values and operations of the fast path, written to mirror jsonata 2.2.2's evaluator
 * (node_modules/jsonata/jsonata.js) line for line, but synchronous: sequences are arrays flagged
 * `sequence` (with the same `push` guard the interpreter installs), object constructors give
 * null-prototype objects, frames chain like createFrame. Whatever the fast path does not mirror exactly
 * (every JSONata error, a value it did not expect) throws FALLBACK and the caller runs the interpreter
 * instead: the expressions it covers are pure, so running them again gives the interpreter's own answer
 * or error.
 */
export const FALLBACK = Object.freeze({ fastPathFallback: true });

/**
 * The expression called a built-in whose implementation is async (JSONata 2.2's `$split`, `$contains`,
 * `$match`, `$replace`, ...): the interpreter must run it, this time and every time after.
 */
export const ASYNC_FALLBACK = Object.freeze({ fastPathFallback: true, asyncBuiltin: true });

/** Detected from the implementation itself, so a JSONata release that makes another built-in async is caught too. */
export function isAsyncImplementation(implementation: unknown): boolean {
  const tag = Object.prototype.toString.call(implementation);
  return tag === '[object AsyncFunction]' || tag === '[object AsyncGeneratorFunction]';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export type Sequence = unknown[] & { sequence: true; keepSingleton?: boolean; outerWrapper?: boolean; cons?: boolean; tupleStream?: boolean };

/** JSONata's function object (`defineFunction`): what `$string` or a registered helper evaluates to. */
export interface JsonataFunction {
  readonly _jsonata_function: true;
  readonly implementation: (...args: unknown[]) => unknown;
  readonly signature?: Signature;
}

/** Per-evaluation state: the limits of the compiled expression and the timeout clock. */
export interface Run {
  readonly maxSequence: number;
  /** Longest text a step may build; a longer one is left to the interpreter, whose guard reports it. */
  readonly maxTextLength: number;
  /** Wall-clock time (Date.now()) at which the expression's own time limit ends; 0: no limit. */
  readonly deadline: number;
  /** How much CPU time the attempt may use (its slice, see index.ts). */
  readonly sliceMs: number;
  /** This thread's CPU time (µs) at which the slice ends; set at the first clock check (0 before). */
  sliceEndCpuUs: number;
  /** Wall-clock time (Date.now()) of the first clock check; 0 before. */
  sliceStartedAt: number;
  ticks: number;
  /**
   * An upper bound of the interpreter's evaluation depth at this point (its `stack` guardrail, U1001): the
   * tree's own depth, plus for every function call under way the depth of the called body and the call's
   * own steps. Above maxDepth the interpreter runs instead, and reports the error if it really is one.
   */
  depth: number;
  readonly maxDepth: number;
  /** The indexes of the joins (joins.ts) built in this evaluation, by filter. */
  joins?: Map<object, unknown>;
  /** Set once a function value was made: the answer is then checked for one (the interpreter's lambdas are not ours). */
  functionsMade: boolean;
  /** The guarded push every sequence of this evaluation carries: one function per evaluation, not one per sequence. */
  readonly guardedPush?: (this: unknown[], ...pushed: unknown[]) => number;
  /** What built-ins get as `this`: the interpreter's focus, and the run (higher-order.ts calls functions with it). */
  readonly focus: { input?: unknown; options: unknown; createSequence: (...items: unknown[]) => Sequence; environment: { readonly timestamp: Date }; run?: Run };
}

/**
 * An empty object without a prototype, as the interpreter's objects are. Made by Object.create(null),
 * V8 keeps its properties in a hash table (slow to fill and to write as JSON); an empty `{}` given the
 * null prototype before it is filled keeps V8's fast properties.
 */
export function emptyObject(): Record<string, unknown> {
  const object = {} as Record<string, unknown>;
  Object.setPrototypeOf(object, null);
  return object;
}

export class Frame {
  readonly vars: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  constructor(readonly parent?: Frame) {}
  lookup(name: string): unknown {
    // Walking up the scope chain starts at this frame; the alias is the loop variable, not a captured `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    for (let frame: Frame | undefined = this; frame; frame = frame.parent) if (name in frame.vars) return frame.vars[name];
    return undefined;
  }
}

export function isSequence(value: unknown): value is Sequence {
  return Array.isArray(value) && (value as Sequence).sequence === true;
}

/** The interpreter's sequence, guard included (`exec_env.createSequence`). */
export function createSequence(run: Run, ...items: unknown[]): Sequence {
  const sequence = [] as unknown as Sequence;
  // Same own property, in the same order, as the interpreter's sequences carry.
  if (run.guardedPush) (sequence as unknown as { push: unknown }).push = run.guardedPush;
  sequence.sequence = true;
  if (items.length === 1) pushItem(run, sequence, items[0]);
  return sequence;
}

/** The `push` of a run's sequences: the interpreter's guard (D2015 there; the interpreter's rerun reports it). */
export function guardedPushFor(max: number): Run['guardedPush'] {
  if (!max) return undefined;
  return function guardedPush(this: unknown[], ...pushed: unknown[]) {
    if (this.length + pushed.length > max) throw FALLBACK;
    return Array.prototype.push.apply(this, pushed);
  };
}

/**
 * The clock check of the loops (every 1024th item): the expression's time limit on the wall clock, the
 * slice in CPU time. Reading the CPU clock is a system call, so an evaluation that never reaches a check
 * (almost all) never reads it: the slice is counted from the first check, after the first 1024 items.
 * After that first reading it is read again only once the slice has passed on the wall clock: until
 * then this thread cannot have used it up. (A list transform of 500 orders made 40 checks, and the
 * readings were 5 to 7% of its time.)
 *
 * The slice is this thread's CPU time, the time the evaluation keeps the event loop from other requests.
 * The process's would count V8's compiler and collector threads too: while a mapping's code is new to V8
 * (the first list of a process) they use as much CPU beside it as the evaluation itself, and the first
 * 60-order list gave up half-way and was interpreted, 400 ms of CPU, on every start and reload.
 */
export function checkClock(run: Run): void {
  const now = Date.now();
  if (run.deadline > 0 && now > run.deadline) throw FALLBACK;
  if (run.sliceStartedAt === 0) run.sliceStartedAt = now;
  else if (now - run.sliceStartedAt < run.sliceMs) return;
  const cpu = process.threadCpuUsage();
  const usedUs = cpu.user + cpu.system;
  if (run.sliceEndCpuUs === 0) run.sliceEndCpuUs = usedUs + run.sliceMs * 1000;
  else if (usedUs > run.sliceEndCpuUs) throw FALLBACK;
}

/** push() with the interpreter's sequence limit (D2015 there, the interpreter's rerun reports it). */
export function pushItem(run: Run, sequence: unknown[], item: unknown): void {
  if (run.maxSequence && sequence.length + 1 > run.maxSequence) throw FALLBACK;
  sequence[sequence.length] = item;
}

/** Every node's result goes through this, as at the end of the interpreter's evaluate(). */
export function finish(result: unknown, keepArray: boolean): unknown {
  if (result && isSequence(result)) {
    if (keepArray) result.keepSingleton = true;
    if (result.length === 0) return undefined;
    if (result.length === 1) return result.keepSingleton ? result : result[0];
  }
  return result;
}

export function isFunctionValue(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null) return false;
  const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flags._jsonata_function === true || flags._jsonata_lambda === true || value instanceof FastLambda || value instanceof Thunk;
}

/** fn.lookup: a field of an object, or of every object in an array, flattened one level. */
export function lookup(run: Run, input: unknown, key: string): unknown {
  if (Array.isArray(input)) {
    const result = createSequence(run);
    for (let index = 0; index < input.length; index++) {
      const found = lookup(run, input[index], key);
      if (found !== undefined) {
        if (Array.isArray(found)) found.forEach((value) => pushItem(run, result, value));
        else pushItem(run, result, found);
      }
    }
    return result;
  }
  return fieldOf(input, key);
}

/** lookup() of a value that is not an array: the object's own field. */
export function fieldOf(input: unknown, key: string): unknown {
  if (input !== null && typeof input === 'object' && Object.prototype.hasOwnProperty.call(input, key) && !isFunctionValue(input)) {
    return (input as Record<string, unknown>)[key];
  }
  return undefined;
}

/** fn.append as the array constructor and grouping call it (with the sequence-size check). */
export function append(run: Run, first: unknown, second: unknown): unknown {
  if (first === undefined) return second;
  if (second === undefined) return first;
  const left = Array.isArray(first) ? first : createSequence(run, first);
  const right = Array.isArray(second) ? second : [second];
  if (left.length + right.length > run.maxSequence) throw FALLBACK;
  return left.concat(right);
}

/** A `function($x) { ... }` of the expression: body, the frame and input it was made in. */
export class FastLambda {
  /** As the interpreter's lambda objects: built-ins ($type, $string, signatures) tell a function by this flag. */
  readonly _jsonata_lambda = true;
  constructor(
    readonly params: readonly string[],
    readonly signature: JsonataFunction['signature'],
    readonly body: (input: unknown, frame: Frame, run: Run) => unknown,
    readonly input: unknown,
    readonly frame: Frame,
    /** What a call adds to the depth bound (Run.depth): the body's depth and the call's own steps. */
    readonly depthCost: number,
  ) {}
}

/** The evaluation steps a call adds around its body (evaluate of the call, apply, the trampoline), counted generously. */
export const CALL_DEPTH = 4;

/** A tail call inside a lambda body, left for the caller's trampoline as in the interpreter's apply(). */
export class Thunk {
  constructor(
    readonly procedure: (input: unknown, frame: Frame, run: Run) => unknown,
    readonly args: readonly ((input: unknown, frame: Frame, run: Run) => unknown)[],
    readonly input: unknown,
    readonly frame: Frame,
    readonly site?: CallSiteSignature,
  ) {}
}

function applyInner(run: Run, proc: unknown, args: unknown[], input: unknown, site?: CallSiteSignature): unknown {
  if (proc instanceof FastLambda) {
    const validated = proc.signature ? proc.signature.validate(args, input) : args;
    const frame = new Frame(proc.frame);
    for (let index = 0; index < proc.params.length; index++) frame.vars[proc.params[index]] = validated[index];
    run.depth += proc.depthCost;
    if (run.depth > run.maxDepth) throw FALLBACK;
    const result = proc.body(proc.input, frame, run);
    run.depth -= proc.depthCost;
    return result;
  }
  if (proc && (proc as JsonataFunction)._jsonata_function === true) {
    const fn = proc as JsonataFunction;
    // Never call an async implementation: its promise would reject where nobody waits for it.
    if (isAsyncImplementation(fn.implementation)) throw ASYNC_FALLBACK;
    return applyBuiltin(run, fn, args, input, site);
  }
  if (typeof proc === 'function') {
    // A function argument handed on (functionArgument), or a regular expression's matcher: called as the interpreter calls it.
    const validated = (proc as { signature?: JsonataFunction['signature'] }).signature?.validate(args, input) ?? args;
    const result = (proc as (...params: unknown[]) => unknown).apply(input, validated);
    if (isThenable(result)) {
      Promise.resolve(result).then(undefined, () => undefined);
      throw ASYNC_FALLBACK;
    }
    return result;
  }
  throw FALLBACK;
}

/** A sync JavaScript function that calls a function value, as the interpreter wraps a function passed to a built-in. */
type FunctionArgument = ((...params: unknown[]) => unknown) & { arity: number };

/** JSONata's getFunctionArity. */
export function arityOf(proc: unknown): number {
  const fn = proc as { arity?: unknown; implementation?: unknown; length?: unknown; params?: readonly string[] };
  if (typeof fn.arity === 'number') return fn.arity;
  if (typeof fn.implementation === 'function') return fn.implementation.length;
  if (typeof fn.length === 'number') return fn.length;
  return fn.params?.length ?? 0;
}

/**
 * An argument of a call: a function value is wrapped in a function that applies it (evaluateFunction's
 * `closure`), so that a built-in calls it like any JavaScript function; anything else as it is.
 */
export function functionArgument(run: Run, value: unknown): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || !isFunctionValue(value)) return value;
  run.functionsMade = true;
  // A regular expression's matcher (language.ts's regexMatcher) as it is: the wrapper would call it as it is, with
  // its own arity, and the built-ins that take a matcher run its engine themselves (guarded-patterns.ts).
  if (ownRegexOf(value) !== undefined) return value;
  const wrapped = ((...params: unknown[]) => apply(run, value, params, null)) as FunctionArgument;
  wrapped.arity = arityOf(value);
  return wrapped;
}

/** The call of a built-in or helper whose implementation is known not to be async. */
export function applyBuiltin(run: Run, fn: JsonataFunction, args: unknown[], input: unknown, site?: CallSiteSignature): unknown {
  const validated = fn.signature ? (site ? site.validate(fn.signature, args, input) : fn.signature.validate(args, input)) : args;
  run.focus.input = input;
  const result = fn.implementation.apply(run.focus, validated);
  if (typeof result !== 'object' || result === null) return checkText(run, result);
  if (isThenable(result)) {
    // A promise from a function that did not look async: observe its rejection, then let the interpreter run.
    Promise.resolve(result).then(undefined, () => undefined);
    throw ASYNC_FALLBACK;
  }
  // A generator would need the interpreter's handling: none of the allowed functions gives one.
  if (typeof (result as { next?: unknown }).next === 'function') throw FALLBACK;
  return result;
}

/** A text over the limit ($join of a long list, `&` of long texts): the interpreter reruns and reports it. */
export function checkText(run: Run, value: unknown): unknown {
  if (typeof value === 'string' && value.length > run.maxTextLength) throw FALLBACK;
  return value;
}

/** apply(): the call (`site`: where a built-in or helper is called by name), then the trampoline over tail calls (whose context argument is the caller's input). */
export function apply(run: Run, proc: unknown, args: unknown[], input: unknown, site?: CallSiteSignature): unknown {
  let result = applyInner(run, proc, args, input, site);
  while (result instanceof Thunk) {
    const tail: Thunk = result;
    if ((++run.ticks & 1023) === 0) checkClock(run);
    const next = tail.procedure(tail.input, tail.frame, run);
    // Not wrapped (functionArgument): the interpreter's trampoline hands a tail call's arguments on as they are.
    const tailArgs = tail.args.map((arg) => arg(tail.input, tail.frame, run));
    result = applyInner(run, next, tailArgs, input, tail.site);
  }
  return result;
}

/** JSONata's built-in functions (jsonata 2.2); a test checks each is really defined. */
export const JSONATA_BUILTINS: readonly string[] = [
  'sum', 'count', 'max', 'min', 'average', 'string', 'substring', 'substringBefore', 'substringAfter', 'lowercase',
  'uppercase', 'length', 'trim', 'pad', 'match', 'contains', 'replace', 'split', 'join', 'formatNumber', 'formatBase',
  'formatInteger', 'parseInteger', 'number', 'floor', 'ceil', 'round', 'abs', 'sqrt', 'power', 'random', 'boolean',
  'not', 'exists', 'append', 'sort', 'reverse', 'shuffle', 'distinct', 'zip', 'keys', 'lookup', 'spread', 'merge',
  'sift', 'each', 'error', 'assert', 'type', 'single', 'filter', 'map', 'reduce', 'now', 'millis', 'fromMillis',
  'toMillis', 'base64encode', 'base64decode', 'encodeUrlComponent', 'encodeUrl', 'decodeUrlComponent', 'decodeUrl',
  'eval', 'clone',
];

/**
 * The built-ins the fast path does not run, and why (`validate` and `dry-run --explain` say it): `$eval`
 * is run where it is called by name (it evaluates in the caller's frame: eval.ts), never as a value;
 * `$spread` of an object of a million keys spent a second listing them before the interpreter started.
 */
export const NOT_COMPILED_BUILTINS: Readonly<Record<string, string>> = Object.freeze({
  eval: '$eval used as a value (not called by its name)',
  spread: '$spread lists all keys of an object in one step of JavaScript\'s, which only the interpreter can pause around',
});

/** The built-ins the fast path may call: all of JSONata's but NOT_COMPILED_BUILTINS. */
export const FAST_BUILTINS: readonly string[] = JSONATA_BUILTINS.filter((name) => !(name in NOT_COMPILED_BUILTINS));

/**
 * JSONata's own function objects, fetched once per process on first use (nothing runs at import). They
 * are constants of the library, the same for every engine and never changed, so a memo here is no engine
 * state. The built-ins are only reachable from inside an evaluation, so they are fetched by evaluating a
 * helper that reads them from its environment; until that resolves (a few microtasks) every expression
 * runs on the interpreter. The engine helpers are registered on the same expression so that they come
 * with JSONata's own parsed signatures.
 */
const functions = new Map<string, JsonataFunction>();
let ready = false;
let fetching: Promise<void> | undefined;

function fetchFunctions(): Promise<void> {
  fetching ??= (async () => {
    const grab = jsonata('$__fastPathGrab()');
    // The same guarded $distinct and $string as the interpreter's (compile.ts): on a big list they give up the fast path.
    for (const builtin of GUARDED_BUILTINS) grab.registerFunction(builtin.name, builtin.implementation as (...args: unknown[]) => unknown, builtin.signature);
    for (const helper of HELPER_FUNCTIONS) grab.registerFunction(helper.name, helper.implementation as (...args: unknown[]) => unknown, helper.signature);
    grab.registerFunction('__fastPathGrab', function (this: { environment: { lookup(name: string): unknown } }) {
      for (const name of [...FAST_BUILTINS, ...HELPER_FUNCTIONS.map((helper) => helper.name)]) {
        const found = this.environment.lookup(name) as JsonataFunction | undefined;
        if (found && found._jsonata_function === true) functions.set(name, found);
      }
      return true;
    });
    await grab.evaluate({});
    ready = functions.size === FAST_BUILTINS.length + HELPER_FUNCTIONS.length;
  })();
  return fetching;
}

export function fastFunctionsReady(): boolean {
  if (!fetching) void fetchFunctions();
  return ready;
}

/** Resolves when the built-ins are fetched (tests wait for it). */
export function whenFastFunctionsReady(): Promise<boolean> {
  return fetchFunctions().then(() => ready);
}

export function fastFunction(name: string): JsonataFunction | undefined {
  return functions.get(name);
}

/** fn.boolean and fn.string, which the operators `and`, `or`, `? :` and `&` use directly. */
export function toBoolean(value: unknown): unknown {
  // fn.boolean's own answers for the usual conditions (a comparison, a field's text), without the call.
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > 0;
  return (functions.get('boolean') as JsonataFunction).implementation(value);
}

export function toText(value: unknown): string {
  return (functions.get('string') as JsonataFunction).implementation(value) as string;
}
