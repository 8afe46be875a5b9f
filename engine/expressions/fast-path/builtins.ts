import { HIGHER_ORDER_NAMES, higherOrderTwin } from './higher-order';
import { ASYNC_FALLBACK, FALLBACK, NOT_COMPILED_BUILTINS, fastFunction, isAsyncImplementation, isFunctionValue, type Frame, type JsonataFunction, type Run } from './runtime';

/**
 * The function a built-in's name stands for on the fast path: JSONata's own (fetched by runtime.ts), or
 * for those jsonata 2.2 writes async because they call a function argument, their synchronous twin
 * (higher-order.ts). The twins are made once per process from the library's constants, like the
 * originals they wrap, so the memo is no engine state.
 */
const twins = new Map<string, JsonataFunction>();

/** undefined: no built-in of that name. A built-in the fast path does not run (NOT_COMPILED_BUILTINS) gives it up. */
export function builtinFunction(name: string): JsonataFunction | undefined {
  if (name in NOT_COMPILED_BUILTINS) throw FALLBACK;
  const original = fastFunction(name);
  if (original === undefined) return undefined;
  if (!HIGHER_ORDER_NAMES.includes(name)) {
    if (isAsyncImplementation(original.implementation)) throw ASYNC_FALLBACK;
    return original;
  }
  let twin = twins.get(name);
  if (twin === undefined) {
    twin = higherOrderTwin(name, original);
    twins.set(name, twin);
  }
  return twin;
}

/**
 * A variable's value as the interpreter's environment gives it: the innermost frame that binds the name,
 * else the built-in of that name (JSONata's static frame is the outermost), else nothing.
 */
export function lookupVariable(run: Run, frame: Frame, name: string): unknown {
  for (let scope: Frame | undefined = frame; scope; scope = scope.parent) {
    // One keyed read for a bound value (the frames' objects have no prototype); `in` only tells a binding to undefined from none.
    const value = scope.vars[name];
    if (value !== undefined || name in scope.vars) return value;
  }
  return builtinFunction(name);
}

/**
 * A variable read as a value (not called): a function read so may end up in the answer, which is then
 * checked for one (index.ts). Functions only called by their name (the mapping's `functions:`) never are.
 */
export function readVariable(run: Run, frame: Frame, name: string): unknown {
  const value = lookupVariable(run, frame, name);
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && isFunctionValue(value)) run.functionsMade = true;
  return value;
}
