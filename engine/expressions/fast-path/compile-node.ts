import { builtinFunction, lookupVariable, readVariable } from './builtins';
import { calledOnlyArguments } from './called-only';
import { filterJoinOf, filterJoinShape, filterJoined } from './joins';
import { compileGeneral, needsGeneral } from './language';
import { groupPart } from './paths';
import { binary, boolize } from './operators';
import {
  CALL_DEPTH, FALLBACK, FastLambda, Frame, Thunk, append, apply, applyBuiltin, checkClock, checkText, createSequence, emptyObject, fieldOf, finish, functionArgument, isSequence, lookup, pushItem,
  toBoolean, type JsonataFunction, type Run, type Sequence,
} from './runtime';
import { CallSiteSignature } from './signature-plan';
import { treeDepth, type AstNode } from './subset';

/**
 * Turns a tree that passed checkSubset into synchronous closures. Each node mirrors the interpreter's
 * evaluate<Type> function of jsonata 2.2.2 and ends, like its evaluate(), with `finish` (a sequence of
 * none is nothing, a sequence of one is its item).
 */
export type Evaluator = (input: unknown, frame: Frame, run: Run) => unknown;

/** The interpreter checks its clock on every step; the fast path on every 1024th item of a loop. */
function tick(run: Run): void {
  if ((++run.ticks & 1023) === 0) checkClock(run);
}

/**
 * Each node's closure ends with `finish` itself where its value can be a sequence (a name, a variable,
 * a call, a path); the other nodes give numbers, booleans, texts, plain arrays and objects, or the
 * finished value of a child, which finish gives back unchanged. One closure per node, not two (a
 * wrapper used to finish every node, and each closure call is paid on every field of every order).
 */
export function compileNode(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const sub = (child: AstNode): Evaluator => compileNode(child, lambdaNames);
  // Predicates, grouping, tuple streams, function values...: language.ts's closures.
  if (needsGeneral(node)) return compileGeneral(node, sub, compileNode);
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value': {
      const value = node.value;
      return () => value;
    }
    case 'name': {
      const key = node.value as string;
      return (input, _frame, run) => finish(Array.isArray(input) ? lookup(run, input, key) : fieldOf(input, key), false);
    }
    case 'variable': {
      const name = node.value as string;
      if (name === '') return (input) => finish(input && (input as Sequence).outerWrapper ? (input as unknown[])[0] : input, false);
      return (_input, frame, run) => finish(readVariable(run, frame, name), false);
    }
    case 'path': return compilePath(node, lambdaNames);
    case 'unary': {
      if (node.value === '-') {
        const operand = sub(node.expression as AstNode);
        return (input, frame, run) => {
          const value = operand(input, frame, run);
          if (value === undefined) return undefined;
          if (typeof value === 'number' && Number.isFinite(value)) return -value;
          throw FALLBACK;
        };
      }
      if (node.value === '[') return compileArray(node, lambdaNames);
      return compileObject(node, lambdaNames);
    }
    case 'binary': {
      const op = node.value as string;
      const lhs = sub(node.lhs as AstNode);
      const rhs = sub(node.rhs as AstNode);
      if (op === 'and') return (input, frame, run) => boolize(lhs(input, frame, run)) && boolize(rhs(input, frame, run));
      if (op === 'or') return (input, frame, run) => boolize(lhs(input, frame, run)) || boolize(rhs(input, frame, run));
      if (op === '&') {
        return (input, frame, run) => {
          const left = lhs(input, frame, run);
          return checkText(run, binary(op, left, rhs(input, frame, run)));
        };
      }
      return (input, frame, run) => {
        const left = lhs(input, frame, run);
        return binary(op, left, rhs(input, frame, run));
      };
    }
    case 'condition': {
      const condition = sub(node.condition as AstNode);
      const then = sub(node.then as AstNode);
      const otherwise = node.else === undefined ? undefined : sub(node.else as AstNode);
      return (input, frame, run) => {
        if (toBoolean(condition(input, frame, run))) return then(input, frame, run);
        return otherwise ? otherwise(input, frame, run) : undefined;
      };
    }
    case 'block': {
      const expressions = (node.expressions as AstNode[]).map(sub);
      return (input, frame, run) => {
        const inner = new Frame(frame);
        let result: unknown;
        for (const expression of expressions) result = expression(input, inner, run);
        return result;
      };
    }
    case 'bind': {
      const name = (node.lhs as AstNode).value as string;
      const rhs = node.rhs as AstNode;
      if (rhs.type === 'lambda') {
        const params = (rhs.arguments as AstNode[]).map((param) => param.value as string);
        const signature = rhs.signature as JsonataFunction['signature'];
        const body = sub(rhs.body as AstNode);
        const cost = treeDepth(rhs.body as AstNode) + CALL_DEPTH;
        return (input, frame) => {
          const lambda = new FastLambda(params, signature, body, input, frame, cost);
          frame.vars[name] = lambda;
          return lambda;
        };
      }
      const value = sub(rhs);
      return (input, frame, run) => {
        const result = value(input, frame, run);
        frame.vars[name] = result;
        return result;
      };
    }
    case 'function': return compileCall(node, lambdaNames);
    case 'lambda': {
      // Only the parser's tail-call thunks get here (checkSubset): the caller's apply() runs the call.
      const call = node.body as AstNode;
      const procedure = compileProcedure(call.procedure as AstNode, lambdaNames);
      const args = (call.arguments as AstNode[]).map(sub);
      const site = callSiteSignature(call, lambdaNames);
      return (input, frame) => new Thunk(procedure, args, input, frame, site);
    }
    default:
      throw new Error(`fast path: node type ${node.type} passed the subset check`);
  }
}

/** A lambda is looked up in the frames (it may not be bound yet); a built-in or helper is fixed. */
function compileProcedure(procedure: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const name = procedure.value as string;
  if (lambdaNames.has(name)) return (_input, frame, run) => lookupVariable(run, frame, name);
  return () => builtinFunction(name);
}

/** A call of a built-in or helper: its signature check is planned once per call site (signature-plan.ts). */
function callSiteSignature(call: AstNode, lambdaNames: ReadonlySet<string>): CallSiteSignature | undefined {
  return lambdaNames.has((call.procedure as AstNode).value as string) ? undefined : new CallSiteSignature();
}

function compileCall(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const args = (node.arguments as AstNode[]).map((arg) => compileNode(arg, lambdaNames));
  const name = (node.procedure as AstNode).value as string;
  if (!lambdaNames.has(name)) {
    // A built-in or helper: found, and checked for an async implementation, at the first call.
    const site = new CallSiteSignature();
    let builtin: JsonataFunction | undefined;
    // `$filter(list, function($v) { $v.key = $o.id })`: through an index, as `list[key = $o.id]` (joins.ts).
    const shape = filterJoinShape(node, lambdaNames);
    const join = shape && filterJoinOf(shape, (child) => compileNode(child, lambdaNames));
    const calledOnly = calledOnlyArguments(name, node.arguments as AstNode[]);
    return (input, frame, run) => {
      if (builtin === undefined) {
        const found = builtinFunction(name);
        if (found === undefined) throw FALLBACK;
        builtin = found;
      }
      const values = new Array<unknown>(args.length);
      for (let index = 0; index < args.length; index++) {
        const made = run.functionsMade;
        values[index] = functionArgument(run, args[index](input, frame, run));
        if (calledOnly[index]) run.functionsMade = made;
        if (index === 0 && shape && join) {
          const joined = filterJoined(join, shape, values[0], frame, run, createSequence(run));
          if (joined) return finish(joined, false);
        }
      }
      return finish(applyBuiltin(run, builtin, values, input, site), false);
    };
  }
  const procedure = compileProcedure(node.procedure as AstNode, lambdaNames);
  const site = callSiteSignature(node, lambdaNames);
  return (input, frame, run) => {
    const proc = procedure(input, frame, run);
    if (proc === undefined) throw FALLBACK;
    const values = new Array<unknown>(args.length);
    for (let index = 0; index < args.length; index++) values[index] = functionArgument(run, args[index](input, frame, run));
    return finish(apply(run, proc, values, input, site), false);
  };
}

function compileArray(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const items = (node.expressions as AstNode[]).map((item) => ({ nested: item.value === '[', evaluate: compileNode(item, lambdaNames) }));
  const cons = node.consarray === true;
  return (input, frame, run) => {
    // append() of the interpreter, into one array: a list value adds its items, anything else itself.
    const result: unknown[] = [];
    for (const item of items) {
      const value = item.evaluate(input, frame, run);
      if (value === undefined) continue;
      if (item.nested || !Array.isArray(value)) {
        if (!item.nested && result.length + 1 > run.maxSequence) throw FALLBACK;
        result.push(value);
      } else {
        if (result.length + value.length > run.maxSequence) throw FALLBACK;
        for (let index = 0; index < value.length; index++) {
          if ((index & 0xffff) === 0xffff) checkClock(run);
          result[result.length] = value[index];
        }
      }
    }
    if (cons) Object.defineProperty(result, 'cons', { enumerable: false, configurable: false, value: true });
    return result;
  };
}

interface Group {
  data: unknown;
  readonly exprIndex: number;
}

/** evaluateGroupExpression without tuple streams (which need `@` or `#`, outside the subset). */
function compileObject(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const sub = (child: AstNode): Evaluator => compileNode(child, lambdaNames);
  const pairs = (node.lhs as AstNode[][]).map(([key, value]) => ({ key: groupPart(key, sub), value: groupPart(value, sub) }));
  // The usual `{ "number": docNo, ... }` over one object: literal, distinct keys make every group a single
  // pair holding the input itself, so the values can be evaluated directly (same results, no grouping).
  const literalKeys = (node.lhs as AstNode[][]).map(([key]) => (key.type === 'string' ? (key.value as string) : undefined));
  const direct = literalKeys.every((key) => key !== undefined && key !== '_jsonata_lambda' && key !== '_jsonata_function')
    && new Set(literalKeys).size === literalKeys.length;
  // The interpreter's objects have no prototype. Made by Object.create(null), V8 keeps such an object's
  // properties in a hash table (slow to fill and to write as JSON); an empty `{}` given the null prototype
  // first keeps V8's fast properties as it is filled, and every object of the site starts from the same
  // hidden class. (Given it after filling, each of the many shapes a site makes, keys left out when
  // undefined, took its own change of prototype: a tenth of a list transform.) Without a prototype,
  // a key `__proto__` is an own property, as the interpreter's.
  return (input, frame, run) => {
    if (direct && !Array.isArray(input)) {
      tick(run);
      const single = {} as Record<string, unknown>;
      Object.setPrototypeOf(single, null);
      for (let pairIndex = 0; pairIndex < pairs.length; pairIndex++) {
        const value = pairs[pairIndex].value(input, frame, run);
        if (value !== undefined) single[literalKeys[pairIndex] as string] = value;
      }
      return single;
    }
    const result = emptyObject();
    const groups = Object.create(null) as Record<string, Group>;
    let items: unknown[];
    if (Array.isArray(input)) {
      // The interpreter pushes into an empty input array; when that array is the caller's data, leave it alone.
      if (input.length === 0 && !isSequence(input)) throw FALLBACK;
      items = input;
    } else {
      items = createSequence(run, input);
    }
    if (items.length === 0) items.push(undefined);
    for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
      tick(run);
      const item = items[itemIndex];
      for (let pairIndex = 0; pairIndex < pairs.length; pairIndex++) {
        const key = pairs[pairIndex].key(item, frame, run);
        if (key === undefined) continue;
        if (typeof key !== 'string' || key === '_jsonata_lambda' || key === '_jsonata_function') throw FALLBACK;
        if (Object.prototype.hasOwnProperty.call(groups, key)) {
          if (groups[key].exprIndex !== pairIndex) throw FALLBACK;
          groups[key].data = append(run, groups[key].data, item);
        } else {
          groups[key] = { data: item, exprIndex: pairIndex };
        }
      }
    }
    for (const key of Object.keys(groups)) {
      const entry = groups[key];
      const value = pairs[entry.exprIndex].value(entry.data, frame, run);
      if (value !== undefined) result[key] = value;
    }
    return result;
  };
}

/** evaluatePath and evaluateStep (no predicates, stages, focus, tuples or keep-array: outside the subset). */
function compilePath(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const stepNodes = node.steps as AstNode[];
  const steps = stepNodes.map((step) => compileNode(step, lambdaNames));
  // A name step over one object is a field read, done here rather than through the step's closures.
  const names = stepNodes.map((step) => (step.type === 'name' ? (step.value as string) : undefined));
  const firstIsVariable = stepNodes[0].type === 'variable';
  const firstIsCons = stepNodes[0].consarray === true;
  const last = steps.length - 1;
  return (input, frame, run) => {
    let index = 0;
    let items: readonly unknown[];
    let result: unknown[] | undefined;
    if (!firstIsCons && (firstIsVariable || !Array.isArray(input))) {
      // The interpreter's sequence holds one item while every step gives one value that is not an array
      // (`$o.shipment.no`, `calls.order.body`): follow that value directly. The first array a step gives
      // becomes the sequence the next steps run over as below, unless it is the path's answer.
      let value: unknown = input;
      for (;;) {
        tick(run);
        const name = names[index];
        if (name !== undefined) value = finish(fieldOf(value, name), false);
        else value = steps[index](value, frame, run);
        if (value === undefined) return undefined;
        if (index === last) return Array.isArray(value) ? finish(lastStepArray(run, value), false) : value;
        index += 1;
        if (!Array.isArray(value)) continue;
        if ((value as Sequence).cons) {
          items = [value];
        } else {
          if (value.length === 0) return undefined;
          if (run.maxSequence && value.length > run.maxSequence) throw FALLBACK;
          items = value;
        }
        break;
      }
    } else {
      items = Array.isArray(input) && !firstIsVariable ? input : createSequence(run, input);
      if (firstIsCons) {
        result = steps[0](items, frame, run) as unknown[] | undefined;
        if (result === undefined || result.length === 0) return finish(result, false);
        items = result;
        index = 1;
      }
    }
    for (; index <= last; index++) {
      result = evaluateStep(steps[index], items, frame, run, index === last);
      if (result.length === 0) break;
      items = result;
    }
    return finish(result, false);
  };
}

/**
 * What evaluateStep gives for the last step over one item whose value is an array: the array itself,
 * unless it is a sequence, whose items are taken into a new one (a cons sequence stays one item). Its
 * callers finish() the answer: a sequence of one item that is not a list gives that item, not copied
 * first (a filter's answer, `lines[state = "sale"]` of one).
 */
export function lastStepArray(run: Run, value: unknown[]): unknown {
  if (!isSequence(value)) return value;
  if (value.length === 1 && !value.cons && 0 in value && !Array.isArray(value[0])) return value[0];
  const flat = createSequence(run);
  if (value.cons) pushItem(run, flat, value);
  else for (let index = 0; index < value.length; index++) if (index in value) pushItem(run, flat, value[index]);
  return flat;
}

/**
 * The interpreter's evaluateStep in one pass: it collects the step's values, then flattens them into a
 * second sequence; here they are flattened as they come, counting them against the sequence limit as
 * the first sequence would (an empty array counts there, and adds nothing to the second).
 */
export function evaluateStep(step: Evaluator, input: readonly unknown[], frame: Frame, run: Run, lastStep: boolean): unknown[] {
  const flat = createSequence(run);
  let count = 0;
  let only: unknown;
  for (let index = 0; index < input.length; index++) {
    tick(run);
    const value = step(input[index], frame, run);
    if (value === undefined) continue;
    count += 1;
    if (run.maxSequence && count > run.maxSequence) throw FALLBACK;
    if (count === 1) only = value;
    if (!Array.isArray(value) || (value as Sequence).cons) {
      pushItem(run, flat, value);
    } else {
      for (let inner = 0; inner < value.length; inner++) if (inner in value) pushItem(run, flat, value[inner]);
    }
  }
  if (lastStep && count === 1 && Array.isArray(only) && !isSequence(only)) return only as unknown[];
  return flat;
}
