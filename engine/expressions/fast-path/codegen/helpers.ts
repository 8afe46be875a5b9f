import { binary, boolize } from '../operators';
import { evaluateStep, lastStepArray, type Evaluator } from '../compile-node';
import { filterJoined, joinedItems } from '../joins';
import { regexMatcher } from '../language';
import { evaluateSort, itemByIndex, timesKept } from '../paths';
import { builtinFunction, lookupVariable, readVariable } from '../builtins';
import {
  FALLBACK, FastLambda, Frame, Thunk, apply, applyBuiltin, checkClock, checkText, createSequence, emptyObject, fieldOf, finish, functionArgument, lookup,
  isSequence, toBoolean, type JsonataFunction, type Run, type Sequence,
} from '../runtime';
import { CallSiteSignature } from '../signature-plan';
import { GROUP_HELPERS } from './group-by';

/**
 * What generated code calls: handed to each generated function as its parameter `h` and unpacked into
 * local names, so the code never reaches a global or anything by a name taken from the mapping. The
 * operations are the closure fast path's own (runtime.ts, operators.ts, compile-node.ts): the generated
 * code differs from the closures only in how the tree's nodes are joined, not in what each one does.
 */

/** The built-in or helper a call site names, found at its first call (as compile-node.ts's compileCall). */
function resolveBuiltin(name: string): JsonataFunction {
  const found = builtinFunction(name);
  if (found === undefined) throw FALLBACK;
  return found;
}

/** A call of a mapping function not bound (yet) in the frames: the interpreter gives the error. */
function needProcedure(procedure: unknown): unknown {
  if (procedure === undefined) throw FALLBACK;
  return procedure;
}

/**
 * A function argument the called built-in only calls (called-only.ts): wrapped as any, then the
 * evaluation's mark of a function value made is put back as it was before the argument ran.
 */
function calledOnly(run: Run, made: boolean, value: unknown): unknown {
  const wrapped = functionArgument(run, value);
  run.functionsMade = made;
  return wrapped;
}

/** A tail call's argument the built-in only calls (the trampoline does not wrap it): the mark put back, the value as it is. */
function keepMark(run: Run, made: boolean, value: unknown): unknown {
  run.functionsMade = made;
  return value;
}

function negate(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return -value;
  throw FALLBACK;
}

/** A path's step gave an array while it followed one value: the items the next steps run over, undefined for none. */
function stepItems(run: Run, value: unknown[]): readonly unknown[] | undefined {
  if ((value as Sequence).cons) return [value];
  if (value.length === 0) return undefined;
  if (run.maxSequence && value.length > run.maxSequence) throw FALLBACK;
  return value;
}

/** The steps of a path from `index` on, over a sequence of items (compile-node.ts's compilePath, second half). */
function pathRest(run: Run, frame: Frame, steps: readonly Evaluator[], items: readonly unknown[], index: number): unknown {
  const last = steps.length - 1;
  let result: readonly unknown[] = items;
  for (; index <= last; index++) {
    result = evaluateStep(steps[index], items, frame, run, index === last);
    if (result.length === 0) break;
    items = result;
  }
  return finish(result, false);
}

/** An array constructor's item that is not itself an array constructor: a list adds its items (compileArray). */
function appendItem(run: Run, result: unknown[], value: unknown): void {
  if (!Array.isArray(value)) {
    if (result.length + 1 > run.maxSequence) throw FALLBACK;
    result.push(value);
    return;
  }
  if (result.length + value.length > run.maxSequence) throw FALLBACK;
  for (let index = 0; index < value.length; index++) {
    // A list of a million items copied: the clock and the slice are checked on the way.
    if ((index & 0xffff) === 0xffff) checkClock(run);
    result[result.length] = value[index];
  }
}

/**
 * The rest of an inline field read (literals.ts's fieldRead) when the quick answer does not hold: the
 * owner is not a plain object, the field is inherited, or the owner is a function value. fieldOf decides.
 */
function slowField(input: unknown, key: string): unknown {
  return finish(fieldOf(input, key), false);
}

/** A JSON value's or an object constructor's prototype: such an owner is never a FastLambda nor a Thunk. */
function plainOwner(input: object): boolean {
  const prototype = Object.getPrototypeOf(input) as unknown;
  return prototype === Object.prototype || prototype === null;
}

const hasOwn = Object.hasOwn;

function markCons(result: unknown[]): unknown[] {
  Object.defineProperty(result, 'cons', { enumerable: false, configurable: false, value: true });
  return result;
}

export const HELPERS = Object.freeze({
  FALLBACK, Frame, FastLambda, Thunk, CallSiteSignature, apply, applyBuiltin, appendItem, calledOnly, binary, boolize, checkClock, checkText, createSequence,
  emptyObject, keepMark, evaluateSort, evaluateStep, filterJoined, finish, functionArgument, hasOwn, joinedItems, lastStepArray, lookup, lookupVariable, markCons, readVariable, needProcedure, negate, pathRest, plainOwner, resolveBuiltin, slowField, stepItems, timesKept, toBoolean, isSequence, itemByIndex,
  regexMatcher, ...GROUP_HELPERS,
});

export type Helpers = typeof HELPERS;

/** The names generated code may use for the helpers: the keys above, and nothing else. */
export const HELPER_NAMES: readonly string[] = Object.keys(HELPERS);
