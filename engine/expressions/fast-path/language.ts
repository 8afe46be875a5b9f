import { LinearRegex, OWN_REGEX, type OwnRegex } from '../regex';
import { compileGeneralPath, pairsOf } from './general-path';
import { evaluateFilter, evaluateGroup, finishNode, predicateOf, type Compile, type Evaluator } from './paths';
import {
  ASYNC_FALLBACK, CALL_DEPTH, FALLBACK, FastLambda, Frame, Thunk, apply, checkClock, createSequence, fieldOf, functionArgument, isFunctionValue, lookup, type JsonataFunction, type Run,
} from './runtime';
import { lookupVariable, readVariable } from './builtins';
import { evalValue, type CompileTree } from './eval';
import { isEvalCall, treeDepth, type AstNode } from './subset';

/**
 * The closures of what the first fast path left to the interpreter: every node JSONata's evaluate()
 * knows, with its predicates `[...]`, its group `{...}` and `[]`, mirroring jsonata 2.2.2's evaluate*
 * functions synchronously. `compile` gives a child's evaluator (the value evaluate() would give: with
 * its predicates applied and finished); these give a node's raw value, which generalNode then filters,
 * groups and finishes as evaluate() does.
 */

const GENERAL_TYPES = new Set(['wildcard', 'descendant', 'parent', 'regex', 'partial', 'apply', 'transform', 'sort']);

/** True when the node needs these closures rather than compile-node.ts's. */
export function needsGeneral(node: AstNode): boolean {
  if (node.predicate !== undefined || node.group !== undefined || node.keepArray !== undefined) return true;
  if (GENERAL_TYPES.has(node.type)) return true;
  switch (node.type) {
    case 'lambda': return node.thunk !== true || ((node.body as AstNode).procedure as AstNode).type !== 'variable';
    case 'function': return (node.procedure as AstNode).type !== 'variable' || isEvalCall(node);
    case 'binary': return node.value === '..';
    case 'path': return node.tuple !== undefined || node.keepSingletonArray !== undefined || node.seekingParent !== undefined
      || (node.steps as AstNode[]).some((step) => step.stages !== undefined || step.tuple !== undefined || step.focus !== undefined || step.index !== undefined || step.ancestor !== undefined || step.type === 'sort' || step.predicate !== undefined);
    default: return false;
  }
}

/** The node's evaluator: its raw value, then evaluate()'s predicates, group and finish. */
export function compileGeneral(node: AstNode, compile: Compile, compileTree: CompileTree): Evaluator {
  const bare: AstNode = { ...node, predicate: undefined, group: undefined, keepArray: undefined };
  const raw = rawValue(bare, node.type === 'path' ? { ...bare, group: node.group } : bare, compile, compileTree);
  const predicates = ((node.predicate as AstNode[] | undefined) ?? []).map((filter) => predicateOf(filter.expr as AstNode, compile));
  const group = node.type !== 'path' && node.group !== undefined ? pairsOf(node.group as AstNode, compile) : undefined;
  const keepArray = node.keepArray === true;
  return (input, frame, run) => {
    let result = raw(input, frame, run);
    for (const predicate of predicates) result = evaluateFilter(predicate, result, frame, run);
    if (group) result = evaluateGroup(group, result, frame, run);
    return finishNode(result, keepArray);
  };
}

/** The raw value of a node without predicates: what evaluate()'s switch gives. */
function rawValue(bare: AstNode, path: AstNode, compile: Compile, compileTree: CompileTree): Evaluator {
  switch (bare.type) {
    case 'path': return compileGeneralPath(path, compile);
    case 'name': {
      const key = bare.value as string;
      return (input, _frame, run) => (Array.isArray(input) ? lookup(run, input, key) : fieldOf(input, key));
    }
    case 'variable': {
      const name = bare.value as string;
      if (name === '') return (input) => (input && (input as { outerWrapper?: boolean }).outerWrapper ? (input as unknown[])[0] : input);
      return (_input, frame, run) => readVariable(run, frame, name);
    }
    case 'wildcard': return wildcard;
    case 'descendant': return descendants;
    case 'parent': {
      const label = (bare.slot as { label: string }).label;
      return (_input, frame) => frame.lookup(label);
    }
    case 'regex': return regexValue(bare);
    case 'function': return isEvalCall(bare) ? evalValue(bare, compile, compileTree) : callValue(bare, compile, undefined);
    case 'lambda': return lambdaValue(bare, compile);
    case 'partial': return partialValue(bare, compile);
    case 'apply': return applyValue(bare, compile);
    case 'transform': return transformValue(bare, compile);
    case 'binary': return bare.value === '..' ? rangeValue(bare, compile) : compile(bare);
    // Every other node: the first fast path's closure (compile-node.ts) of the node without predicates.
    default: return compile(bare);
  }
}

function objectKeys(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value) : [];
}

function flatten(value: unknown, into: unknown[]): unknown[] {
  if (Array.isArray(value)) for (const item of value) flatten(item, into);
  else into.push(value);
  return into;
}

/** evaluateWildcard. */
function wildcard(input: unknown, _frame: Frame, run: Run): unknown {
  let results: unknown[] = createSequence(run);
  let value = input;
  if (Array.isArray(value) && (value as { outerWrapper?: boolean }).outerWrapper && value.length > 0) value = value[0];
  if (value !== null && typeof value === 'object' && !isFunctionValue(value)) {
    for (const key of objectKeys(value)) {
      const field = (value as Record<string, unknown>)[key];
      if (Array.isArray(field)) {
        const flat = flatten(field, []);
        // fn.append(results, flat): concatenated, so a plain array from then on (evaluate() does not unwrap it).
        if (run.maxSequence && results.length + flat.length > run.maxSequence) throw FALLBACK; // D2015
        results = results.concat(flat);
      } else {
        results.push(field);
      }
    }
  }
  return results;
}

/** evaluateDescendants. */
function descendants(input: unknown, _frame: Frame, run: Run): unknown {
  if (input === undefined) return undefined;
  const results = createSequence(run);
  const walk = (value: unknown): void => {
    if (!Array.isArray(value)) results.push(value);
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value !== null && typeof value === 'object' && !isFunctionValue(value)) for (const key of objectKeys(value)) walk((value as Record<string, unknown>)[key]);
  };
  walk(input);
  return results.length === 1 ? results[0] : results;
}

interface Match {
  match: string;
  start: number;
  end: number;
  groups: string[];
  next?: () => Match | undefined;
}

/**
 * evaluateRegex: the matcher function JSONata makes of a regular expression literal at each evaluation of
 * it, over the same RE2 engine (regex.ts). The generated code (codegen/regex.ts) makes it here too.
 */
export function regexMatcher(pattern: RegExp): (text: string, fromIndex?: number) => Match | undefined {
  const engine = new LinearRegex(pattern);
  const closure = (text: string, fromIndex?: number): Match | undefined => {
    engine.lastIndex = fromIndex ?? 0;
    const found = engine.exec(text);
    if (found === null) return undefined;
    const result: Match = { match: found[0], start: found.index, end: found.index + found[0].length, groups: found.slice(1) };
    result.next = () => {
      if (engine.lastIndex >= text.length) return undefined;
      const next = closure(text, engine.lastIndex);
      if (next && next.match === '') zeroLengthMatch();
      return next;
    };
    return result;
  };
  // The built-ins that take a matcher run this engine themselves (guarded-patterns.ts): as `next` does, a zero-length match after the first is D1004.
  (closure as { [OWN_REGEX]?: OwnRegex })[OWN_REGEX] = { regex: engine, zeroLength: zeroLengthMatch };
  return closure;
}

function zeroLengthMatch(): never {
  throw FALLBACK; // D1004
}

function regexValue(node: AstNode): Evaluator {
  const pattern = node.value as RegExp;
  return (_input, _frame, run) => {
    run.functionsMade = true;
    return regexMatcher(pattern);
  };
}

/** evaluateFunction (applyTo: the left side of `~>`). */
function callValue(node: AstNode, compile: Compile, applyTo: Evaluator | undefined): Evaluator {
  const procedureNode = node.procedure as AstNode;
  const procedure = compile(procedureNode);
  const args = (node.arguments as AstNode[]).map(compile);
  const firstStep = procedureNode.type === 'path' ? ((procedureNode.steps as AstNode[])[0].value as string) : undefined;
  return (input, frame, run) => {
    const context = applyTo?.(input, frame, run);
    const proc = procedure(input, frame, run);
    if (proc === undefined && firstStep !== undefined && lookupVariable(run, frame, firstStep) !== undefined) throw FALLBACK; // T1005
    const values: unknown[] = applyTo ? [context] : [];
    for (const arg of args) values.push(functionArgument(run, arg(input, frame, run)));
    return apply(run, proc, values, input);
  };
}

function lambdaValue(node: AstNode, compile: Compile): Evaluator {
  if (node.thunk === true) {
    const call = node.body as AstNode;
    const procedure = compile(call.procedure as AstNode);
    const args = (call.arguments as AstNode[]).map(compile);
    return (input, frame) => new Thunk(procedure, args, input, frame);
  }
  const params = (node.arguments as AstNode[]).map((param) => param.value as string);
  const signature = node.signature as JsonataFunction['signature'];
  const body = compile(node.body as AstNode);
  const cost = treeDepth(node.body as AstNode) + CALL_DEPTH;
  return (input, frame, run) => {
    run.functionsMade = true;
    return new FastLambda(params, signature, body, input, frame, cost);
  };
}

const PLACEHOLDER = Symbol('partial application placeholder');

/** A native function's parameter names, as the interpreter reads them from its text (getNativeFunctionArguments). */
function nativeParams(native: (...args: unknown[]) => unknown): string[] {
  const found = /\(([^)]*)\)/.exec(native.toString());
  if (!found) throw FALLBACK;
  return found[1].split(',').map((name) => name.trim());
}

/** partialApplyProcedure: the bound parameters in a frame, the `?` ones left. */
function partialLambda(proc: FastLambda, args: readonly unknown[]): FastLambda {
  const frame = new Frame(proc.frame);
  const unbound: string[] = [];
  proc.params.forEach((param, index) => {
    if (args[index] === PLACEHOLDER) unbound.push(param);
    else frame.vars[param] = args[index];
  });
  return new FastLambda(unbound, undefined, proc.body, proc.input, frame, proc.depthCost);
}

/** partialApplyNativeFunction: a lambda over the native function's own parameters (no signature check, as the interpreter). */
function partialNative(native: (...args: unknown[]) => unknown, args: readonly unknown[], frame: Frame): FastLambda {
  const names = nativeParams(native);
  const body: Evaluator = (_input, env, run) => {
    const result = native.apply(run.focus, names.map((name) => env.lookup(name)));
    if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') throw ASYNC_FALLBACK;
    return result;
  };
  return partialLambda(new FastLambda(names, undefined, body, undefined, frame, CALL_DEPTH), args);
}

function partialValue(node: AstNode, compile: Compile): Evaluator {
  const procedureNode = node.procedure as AstNode;
  const procedure = compile(procedureNode);
  const args = (node.arguments as AstNode[]).map((arg) => (arg.type === 'operator' && arg.value === '?' ? undefined : compile(arg)));
  const firstStep = procedureNode.type === 'path' ? ((procedureNode.steps as AstNode[])[0].value as string) : undefined;
  return (input, frame, run) => {
    const values = args.map((arg) => (arg === undefined ? PLACEHOLDER : arg(input, frame, run)));
    const proc = procedure(input, frame, run);
    if (proc === undefined && firstStep !== undefined && lookupVariable(run, frame, firstStep) !== undefined) throw FALLBACK; // T1007
    run.functionsMade = true;
    if (proc instanceof FastLambda) return partialLambda(proc, values);
    if (proc && (proc as JsonataFunction)._jsonata_function === true) return partialNative((proc as JsonataFunction).implementation, values, frame);
    if (typeof proc === 'function') return partialNative(proc as (...args: unknown[]) => unknown, values, frame);
    throw FALLBACK; // T1008
  };
}

/** The chain `f ~> g` of two functions: λ($x){ $g($f($x)) } (the interpreter's chainAST). */
function chain(first: unknown, second: unknown): FastLambda {
  const frame = new Frame();
  frame.vars.f = first;
  frame.vars.g = second;
  const body: Evaluator = (_input, env, run) => {
    const inner = finishNode(apply(run, env.lookup('f'), [functionArgument(run, env.lookup('x'))], null), false);
    return apply(run, env.lookup('g'), [functionArgument(run, inner)], null);
  };
  return new FastLambda(['x'], undefined, body, null, frame, 2 * CALL_DEPTH + 4);
}

/** evaluateApplyExpression (`~>`). */
function applyValue(node: AstNode, compile: Compile): Evaluator {
  const lhs = compile(node.lhs as AstNode);
  const rhsNode = node.rhs as AstNode;
  if (rhsNode.type === 'function') {
    // The call with the left side as its first argument, evaluated directly (not through evaluate(): no predicates of its own).
    return callValue(rhsNode, compile, lhs);
  }
  const rhs = compile(rhsNode);
  return (input, frame, run) => {
    const left = lhs(input, frame, run);
    const func = rhs(input, frame, run);
    if (!isFunctionValue(func)) throw FALLBACK; // T2006
    if (isFunctionValue(left)) {
      run.functionsMade = true;
      return chain(left, func);
    }
    return apply(run, func, [left], null);
  };
}

/** evaluateRangeExpression (`..`). */
function rangeValue(node: AstNode, compile: Compile): Evaluator {
  const lhs = compile(node.lhs as AstNode);
  const rhs = compile(node.rhs as AstNode);
  return (input, frame, run) => {
    const from = lhs(input, frame, run);
    const to = rhs(input, frame, run);
    if (from !== undefined && !Number.isInteger(from)) throw FALLBACK; // T2003
    if (to !== undefined && !Number.isInteger(to)) throw FALLBACK; // T2004
    if (from === undefined || to === undefined || (from as number) > (to as number)) return undefined;
    const size = (to as number) - (from as number) + 1;
    if (size > 1e7 || (run.maxSequence && size > run.maxSequence)) throw FALLBACK; // D2014, D2015
    const result = new Array<number>(size) as number[] & { sequence?: boolean };
    for (let index = 0; index < size; index++) {
      // A range of a million is a tenth of a second on a busy machine: the clock and the slice are checked while it fills.
      if ((index & 0xffff) === 0xffff) checkClock(run);
      result[index] = (from as number) + index;
    }
    result.sequence = true;
    return result;
  };
}

/** evaluateTransformExpression: a function of one object (or array) giving a changed copy. */
function transformValue(node: AstNode, compile: Compile): Evaluator {
  const pattern = compile(node.pattern as AstNode);
  const update = compile(node.update as AstNode);
  const deletion = node.delete === undefined ? undefined : compile(node.delete as AstNode);
  return (_input, frame, run) => {
    run.functionsMade = true;
    const transformer = (...args: unknown[]): unknown => {
      const object = args[0];
      // The signature <(oa):o>: one argument, an object, an array or nothing (anything else is T0410).
      if (args.length !== 1) throw FALLBACK;
      if (object === undefined) return undefined;
      if (object === null || typeof object !== 'object' || isFunctionValue(object)) throw FALLBACK;
      const clone = lookupVariable(run, frame, 'clone');
      if (!isFunctionValue(clone)) throw FALLBACK; // T2013
      const result = apply(run, clone, [object], null);
      let matches = pattern(result, frame, run);
      if (matches === undefined) return result;
      if (!Array.isArray(matches)) matches = [matches];
      for (const match of matches as Record<string, unknown>[]) {
        const changes = update(match, frame, run);
        if (changes !== undefined) {
          if (changes === null || typeof changes !== 'object' || Array.isArray(changes)) throw FALLBACK; // T2011
          for (const key of Object.keys(changes)) match[key] = (changes as Record<string, unknown>)[key];
        }
        if (deletion === undefined) continue;
        const deletions = deletion(match, frame, run);
        if (deletions === undefined) continue;
        const names = Array.isArray(deletions) ? deletions : [deletions];
        if (!names.every((name) => typeof name === 'string')) throw FALLBACK; // T2012
        for (const name of names as string[]) if (typeof match === 'object' && match !== null) delete match[name];
      }
      return result;
    };
    return transformer;
  };
}
