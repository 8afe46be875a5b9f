import jsonata from 'jsonata';
import { LRUCache } from 'lru-cache';
import { CONCAT_STRING_FUNCTION, writeConcatOperands } from './concat-operands';
import { foldLiteralObjects } from './constant-objects';
import { buildFastPath, type FastPath } from './fast-path';
import { codegenSupport } from './fast-path/codegen';
import { inputFieldsRead } from './fast-path/input-fields';
import type { AstNode } from './fast-path/subset';
import { fastPathSupport } from './fast-path/version';
import { JSONATA_BUILTINS, fastFunctionsReady, whenFastFunctionsReady } from './fast-path/runtime';
import { HELPER_FUNCTIONS } from './functions';
import { GROUP_BY_BUILTIN, writeGroupBy } from './group-by';
import { evaluationGuard } from './guard';
import { GUARDED_BUILTINS } from './guarded-builtins';
import { evaluateInSlices, longListAt, slicedListField } from './list-slices';
import { findLongListLiteral } from './long-lists';
import { ORDER_BY_BUILTIN, writeOrderBy } from './order-by';
import { findUnsupportedRegex, LinearRegex } from './regex';
import { currentClock, EvaluationClock, onClock } from './own-time';

/**
 * Guardrails so that one bad expression cannot hang or exhaust the server: evaluation time, recursion
 * depth, sequence length and text length. A mapping may tighten or widen the first three under `limits:`.
 */
export interface ExpressionLimits {
  /** The time an evaluation may run, not counting its waits while other requests ran (own-time.ts). */
  readonly timeoutMs: number;
  /** The wall time an evaluation may take, waits included; at least timeoutMs. */
  readonly wallTimeoutMs?: number;
  readonly maxDepth: number;
  readonly maxSequence: number;
  /** Longest text (in UTF-16 units) a step may build; above the default system.maxResponseBytes, so a large ERP field still fits. */
  readonly maxTextLength?: number;
}

const DEFAULT_MAX_TEXT_LENGTH = 64 * 1024 * 1024;

export const DEFAULT_EXPRESSION_LIMITS: ExpressionLimits = Object.freeze({ timeoutMs: 5000, wallTimeoutMs: 30_000, maxDepth: 500, maxSequence: 1_000_000, maxTextLength: DEFAULT_MAX_TEXT_LENGTH });

/** How an expression's evaluations were answered, for the metrics (a live view, not a copy). */
export interface ExpressionStats {
  /** Answered by the fast path. */
  readonly fast: number;
  /** The fast path tried and gave up; the interpreter answered. */
  readonly fallback: number;
  /** Only the interpreter ran (the expression is outside the fast path's subset, or it was turned off). */
  readonly interpreter: number;
}

export interface CompiledExpression {
  readonly source: string;
  evaluate(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
  /** True when the expression runs on the synchronous fast path (engine/expressions/fast-path/). */
  readonly fastPath?: boolean;
  readonly stats: ExpressionStats;
  /**
   * The top-level fields of an object input the expression can read, when nothing else (the whole
   * input, a clock, a random source) can change its result; undefined when that cannot be told. Given
   * no bindings, two inputs equal on these fields give the same result (fast-path/input-fields.ts).
   */
  inputFieldsRead(): readonly string[] | undefined;
  /** How the expression runs, and the generated source when it was compiled (`dry-run --explain`). */
  explain(): ExpressionExplanation;
}

export interface ExpressionExplanation {
  /** `compiled`: one generated function (fast-path/codegen/); `closures`: the closure fast path; `interpreter`: JSONata's. */
  readonly runs: 'compiled' | 'closures' | 'interpreter';
  /** Why it does not run compiled. */
  readonly why?: string;
  readonly code?: string;
  /** Subtrees the generated function hands to the closures. */
  readonly delegated?: readonly string[];
}


export interface CompileOptions {
  /** false: always the interpreter (the fast path's differential tests compare against it). */
  readonly fastPath?: boolean;
  /**
   * false: the fast path runs its closures (compile-node.ts) instead of one function generated from the
   * tree (fast-path/codegen/): `serve --no-codegen`, and the differential tests. Same answers either way.
   */
  readonly codegen?: boolean;
}

/** JSONata's error object: code (S0xxx syntax, T type, D dynamic, U undefined), position, token. */
export interface JsonataFault {
  code?: string;
  position?: number;
  token?: string;
  message?: string;
}

export class ExpressionSyntaxError extends Error {
  readonly code: string;
  /** 0-based offset of the problem inside the expression text. */
  readonly offset: number;
  constructor(fault: JsonataFault, source: string) {
    super(fault.message ?? 'syntax error');
    this.code = fault.code ?? 'S0000';
    // JSONata reports the position just after the offending token; point at its first character.
    const end = typeof fault.position === 'number' ? fault.position : 0;
    // At the end of the text the token is the marker "(end)", which is not in the source: point at the last character.
    const tokenLength = typeof fault.token === 'string' && fault.token !== '(end)' ? fault.token.length : 0;
    this.offset = Math.min(Math.max(0, end - tokenLength), Math.max(0, source.length - 1));
  }
}

/** A regular expression literal RE2 cannot run (backreference, lookaround, a repeat over 1000): refused at load. */
export class UnsupportedRegexError extends ExpressionSyntaxError {
  constructor(message: string, offset: number, source: string) {
    super({ code: 'RE2', message, position: offset }, source);
  }
}

/**
 * Compile once at load. Throws ExpressionSyntaxError with the offset so the loader can report
 * file:line:col. `prelude` holds the mapping's own functions (`$name := function(...) {...};`): they are
 * compiled into every expression rather than evaluated once and shared, because a JSONata lambda keeps
 * the evaluation it was made in (its time limit and depth counter), which must be per request.
 */
export function compileExpression(
  source: string,
  limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS,
  prelude = '',
  compileOptions: CompileOptions = {},
): CompiledExpression {
  return compileWithTree(source, limits, prelude, compileOptions).compiled;
}

/**
 * compileExpression, and JSONata's parse tree of `source` (the prelude not included) for the checks at
 * load that read it (compile-mapping.ts): the text is parsed once at load. The compiled expression
 * does not keep that tree: JSONata's tokens inherit from its parser's symbol table, whose functions
 * hold the whole parser, so each tree kept ~14 KB from load until the first evaluation (for routes
 * never asked, for good): 1,200 expressions in 20 mapping files, 17 MB that every young-generation
 * collection of the start-up copied again. Only the bounded CHECKED_EXPRESSIONS keeps trees, one per
 * distinct expression. The first evaluation parses the text anew (it parsed at load, so it cannot
 * fail), as it always did for an expression with the mapping's functions.
 */
export function compileWithTree(
  source: string,
  limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS,
  prelude = '',
  compileOptions: CompileOptions = {},
): { readonly compiled: CompiledExpression; readonly tree: unknown } {
  const { tree, prepare } = checkedExpression(source, limits, prelude, compileOptions);
  const stats = { fast: 0, fallback: 0, interpreter: 0 };
  // JSONata's D1012 names the timeout it was given, which the clock stretched by the waits: name the limit.
  const withTheLimit = (error: unknown): never => {
    const fault = error as { code?: unknown; value?: unknown; message?: unknown } | null;
    if (fault && typeof fault === 'object' && fault.code === 'D1012' && typeof fault.value === 'number' && fault.value !== wallTimeoutMs) {
      fault.value = limits.timeoutMs;
      if (typeof fault.message === 'string') fault.message = fault.message.replace(/after \d+ milliseconds/, `after ${limits.timeoutMs} milliseconds`);
    }
    throw error;
  };
  const wallTimeoutMs = Math.max(limits.wallTimeoutMs ?? DEFAULT_EXPRESSION_LIMITS.wallTimeoutMs ?? 0, limits.timeoutMs);
  // `clock`: the evaluation's, when it is one slice of a long list (the slices share one limit).
  const evaluateOnce = ({ interpreted, fast }: PreparedExpression, input: unknown, bindings: Record<string, unknown>, clock?: EvaluationClock): Promise<unknown> => {
    const started = Date.now();
    // The fast attempt counts against the limit: the interpreter runs on the same clock, never a fresh limit.
    const interpret = () => {
      const running = clock ?? new EvaluationClock(limits.timeoutMs, wallTimeoutMs, started);
      running.startRun();
      const evaluation = clock ? interpreted.evaluate(input, bindings) : onClock(running, () => interpreted.evaluate(input, bindings));
      return evaluation.catch(withTheLimit);
    };
    if (!fast || fast.disabled) {
      stats.interpreter += 1;
      return interpret();
    }
    const attempt = (): Promise<unknown> => {
      const answer = fast.evaluate(input, bindings);
      if (answer) {
        stats.fast += 1;
        return Promise.resolve(answer.value);
      }
      stats.fallback += 1;
      return interpret();
    };
    // The process's first evaluations come before JSONata's built-ins are fetched (a few microtasks,
    // fast-path/runtime.ts): wait for them rather than interpret (a 60-order list: 400 ms of CPU).
    return fastFunctionsReady() ? attempt() : whenFastFunctionsReady().then(attempt, attempt);
  };
  const compiled = {
    source,
    stats,
    inputFieldsRead: () => prepare().fieldsRead,
    explain: () => explainPrepared(prepare()),
    // Bindings are passed fresh on every call: the compiled expression is shared by concurrent requests.
    evaluate: (input: unknown, bindings?: Record<string, unknown>) => {
      let ready: PreparedExpression;
      try {
        ready = prepare();
      } catch (error) {
        return Promise.reject(error);
      }
      const { slicedField } = ready;
      const list = slicedField === undefined ? undefined : longListAt(input, slicedField);
      if (list && slicedField !== undefined) {
        const clock = new EvaluationClock(limits.timeoutMs, wallTimeoutMs);
        return onClock(clock, () => evaluateInSlices((part) => evaluateOnce(ready, part, bindings ?? {}, clock), input as Record<string, unknown>, slicedField, list, limits));
      }
      return evaluateOnce(ready, input, bindings ?? {});
    },
  };
  // Not enumerable: whoever walks the mapping's values (deepFreeze) must not prepare every expression.
  Object.defineProperty(compiled, 'fastPath', { enumerable: false, get: () => prepare().fast !== undefined });
  return { compiled: Object.freeze(compiled) as CompiledExpression, tree };
}

/** An expression's parse tree, checked at load, and its preparation to run (on its first evaluation). */
interface CheckedExpression {
  readonly tree: unknown;
  readonly prepare: () => PreparedExpression;
}

/**
 * Checked expressions by everything the checks and the preparation depend on: text, prelude, limits and
 * options. Mappings made from one template repeat the same expressions: 200 copies of the example
 * mapping parsed each of its expressions 200 times at start-up, and prepared each again on its first
 * evaluation. Bounded because each entry keeps JSONata's tree, which holds its parser (~14 KB, see
 * compileWithTree): 512 entries hold at most ~7 MB whatever the number of mappings. Only expressions
 * that passed every check are kept: a bad one is parsed again by each mapping that has it, and each
 * reports it at its own file:line:col.
 */
const CHECKED_EXPRESSIONS = new LRUCache<string, CheckedExpression>({ max: 512 });

/**
 * The parts of a compiled expression that depend only on its text, prelude, limits and options: the
 * parse tree (checked) and the preparation for running. Mappings made from one template repeat the
 * same expressions, so these are shared through a bounded cache (CHECKED_EXPRESSIONS); every caller
 * still gets its own CompiledExpression (its own counts) and reports problems at its own place.
 */
function checkedExpression(source: string, limits: ExpressionLimits, prelude: string, compileOptions: CompileOptions): CheckedExpression {
  const key = JSON.stringify([source, prelude, limits, compileOptions]);
  const cached = CHECKED_EXPRESSIONS.get(key);
  if (cached) return cached;
  const options = {
    // JSONata compares this with the wall time of its run: the clock turns the own-time limit into that.
    get timeout(): number {
      return currentClock()?.jsonataTimeout() ?? limits.timeoutMs;
    },
    stack: limits.maxDepth,
    sequence: limits.maxSequence,
    // Not JSONata's: read by $string (guarded-builtins.ts), which stops writing past it.
    maxTextLength: limits.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH,
    // Linear-time matching (regex.ts); JSONata's type says RegExpConstructor but it only calls `new` with the literal's RegExp.
    RegexEngine: LinearRegex as unknown as RegExpConstructor,
  };
  let expression: jsonata.Expression;
  try {
    expression = jsonata(source, options);
  } catch (fault) {
    throw new ExpressionSyntaxError(fault as JsonataFault, source);
  }
  const tree = expression.ast();
  const longList = findLongListLiteral(tree, limits.maxDepth);
  if (longList) throw new ExpressionSyntaxError({ code: 'S0000', message: longList.message, position: longList.position }, source);
  const regexProblem = findUnsupportedRegex(tree, source);
  if (regexProblem) throw new UnsupportedRegexError(regexProblem.message, regexProblem.offset, source);
  // Everything below can neither fail nor report a problem of the mapping (the text and the prelude's
  // functions were checked above and on their own), so it runs on the first evaluation instead of at
  // load: a server with many mapping files answers sooner, and routes never asked cost nothing.
  let prepared: PreparedExpression | undefined;
  const prepare = () => {
    prepared ??= prepareExpression(jsonata(prelude ? `(${prelude}\n${source}\n)` : source, options), source, prelude !== '', limits, compileOptions);
    return prepared;
  };
  const checked = { tree, prepare };
  CHECKED_EXPRESSIONS.set(key, checked);
  return checked;
}

interface PreparedExpression {
  readonly interpreted: jsonata.Expression;
  readonly fast?: FastPath;
  /** The list field mapped element by element that is evaluated in slices (list-slices.ts), if any. */
  readonly slicedField?: string;
  /** See CompiledExpression.inputFieldsRead: only told for trees the fast path runs. */
  readonly fieldsRead?: readonly string[];
  /** Why the fast path, or its generated code, does not run it. */
  readonly why?: string;
}

function explainPrepared({ fast, why }: PreparedExpression): ExpressionExplanation {
  if (!fast) return { runs: 'interpreter', why };
  if (fast.disabled) return { runs: 'interpreter', why: 'it called a built-in whose implementation is async; the interpreter runs it from then on' };
  if (!fast.generated) return { runs: 'closures', why };
  return { runs: 'compiled', code: fast.generated.source, delegated: fast.generated.delegated };
}

/** Why the fast path (`fast` undefined) or its code generator does not run an expression. */
function notCompiledWhy(compileOptions: CompileOptions, outside: string | undefined): string | undefined {
  if (compileOptions.fastPath === false) return 'the fast path is turned off for this expression';
  const support = fastPathSupport();
  if (!support.enabled) return support.reason;
  if (outside !== undefined) return `outside the fast path's subset: ${outside}`;
  if (compileOptions.codegen === false) return 'code generation is turned off (--no-codegen)';
  const codegen = codegenSupport();
  return codegen.enabled ? undefined : codegen.reason;
}

/** The parsed expression made ready to run: literal tables folded, functions registered, the fast path built. */
function prepareExpression(
  expression: jsonata.Expression,
  source: string,
  withPrelude: boolean,
  limits: ExpressionLimits,
  compileOptions: CompileOptions,
): PreparedExpression {
  // The prelude's functions were checked on their own; this compiles their literals' new RegExp objects for RE2.
  if (withPrelude) findUnsupportedRegex(expression.ast(), source);
  // Inline lookup tables are built once here rather than on every evaluation (see constant-objects.ts).
  const constants = foldLiteralObjects(expression.ast());
  for (const [name, value] of constants) expression.assign(name, value);
  // $sort, $distinct, $spread and $string in slices, with the limits (guarded-builtins.ts), over JSONata's own.
  for (const builtin of GUARDED_BUILTINS) {
    expression.registerFunction(builtin.name, builtin.implementation as (...args: unknown[]) => unknown, builtin.signature);
    if (builtin.name === 'string') expression.registerFunction(CONCAT_STRING_FUNCTION, builtin.implementation as (...args: unknown[]) => unknown, builtin.signature);
  }
  for (const helper of HELPER_FUNCTIONS) {
    expression.registerFunction(helper.name, helper.implementation as (...args: unknown[]) => unknown, helper.signature);
  }
  // After every interpreter step: let other requests run, stop texts and lists that grow without bound (guard.ts).
  expression.assign(Symbol.for('jsonata.__evaluate_exit') as unknown as string, evaluationGuard({ maxTextLength: limits.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH, maxSequence: limits.maxSequence }));
  // JSONata's interpreter is fully async (a promise per evaluation step); most mapping expressions fit a
  // subset that is evaluated synchronously with the same results, falling back to it for everything else.
  const built = compileOptions.fastPath === false || !fastPathSupport().enabled ? undefined : buildFastPath(expression.ast(), constants, { ...limits, maxTextLength: limits.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH }, RESERVED_NAMES, compileOptions.codegen !== false);
  const fast = built && !('outside' in built) ? built : undefined;
  const why = notCompiledWhy(compileOptions, built && 'outside' in built ? built.outside : undefined);
  // Read before the rewrites below, which add calls the analysis does not know; the subset is the fast path's.
  const fieldsRead = fast ? inputFieldsRead(expression.ast() as AstNode) : undefined;
  // Long lists mapped element by element are evaluated in slices, letting other requests in (list-slices.ts); read before the rewrites below.
  const slicedField = slicedListField(expression.ast());
  // The interpreter's grouping `list{ key: value }` runs one group at a time, in slices (group-by.ts); before
  // the order-by rewrite, so that a sorted path it hands on is rewritten too. The fast path groups on its own.
  expression.registerFunction(GROUP_BY_BUILTIN.name, GROUP_BY_BUILTIN.implementation as (...args: unknown[]) => unknown);
  writeGroupBy(expression.ast());
  // The interpreter's order-by `list^(key)` sorts with the guarded $sort (order-by.ts); the fast path never runs an order-by.
  expression.registerFunction(ORDER_BY_BUILTIN.name, ORDER_BY_BUILTIN.implementation as (...args: unknown[]) => unknown);
  writeOrderBy(expression.ast());
  // The interpreter's `&` writes its operands with the guarded $string (concat-operands.ts); the fast path, compiled above, already does.
  writeConcatOperands(expression.ast());
  return { interpreted: expression, fast, slicedField, fieldsRead, why };
}

export { JSONATA_BUILTINS };

const RESERVED_NAMES: ReadonlySet<string> = new Set([...JSONATA_BUILTINS, ...HELPER_FUNCTIONS.map((helper) => helper.name)]);

/** True when `$name` is already a JSONata built-in or an engine helper, so a mapping function would hide it. */
export function isReservedFunctionName(name: string): boolean {
  return RESERVED_NAMES.has(name);
}

/** A readable message from whatever JSONata or a helper threw. */
export function describeEvaluationError(error: unknown): string {
  if (error && typeof error === 'object') {
    const fault = error as JsonataFault;
    const message = fault.message ?? String(error);
    return fault.code ? `${message} (JSONata ${fault.code})` : message;
  }
  return String(error);
}
