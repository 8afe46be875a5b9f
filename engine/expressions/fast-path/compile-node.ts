import { binary, boolize } from './operators';
import {
  FALLBACK, FastLambda, Frame, Thunk, append, apply, checkText, createSequence, fastFunction, finish, isSequence, lookup, pushItem,
  toBoolean, type JsonataFunction, type Run, type Sequence,
} from './runtime';
import type { AstNode } from './subset';

/**
 * Turns a tree that passed checkSubset into synchronous closures. Each node mirrors the interpreter's
 * evaluate<Type> function of jsonata 2.2.2 and ends, like its evaluate(), with `finish` (a sequence of
 * none is nothing, a sequence of one is its item).
 */
export type Evaluator = (input: unknown, frame: Frame, run: Run) => unknown;

/** The interpreter checks its clock on every step; the fast path on every 1024th item of a loop. */
function tick(run: Run): void {
  if ((++run.ticks & 1023) === 0 && run.deadline > 0 && Date.now() > run.deadline) throw FALLBACK;
}

export function compileNode(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const raw = compileRaw(node, lambdaNames);
  if (node.type === 'string' || node.type === 'number' || node.type === 'value') return raw;
  return (input, frame, run) => finish(raw(input, frame, run), false);
}

function compileRaw(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const sub = (child: AstNode): Evaluator => compileNode(child, lambdaNames);
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value': {
      const value = node.value;
      return () => value;
    }
    case 'name': {
      const key = node.value as string;
      return (input, _frame, run) => lookup(run, input, key);
    }
    case 'variable': {
      const name = node.value as string;
      if (name === '') return (input) => (input && (input as Sequence).outerWrapper ? (input as unknown[])[0] : input);
      return (_input, frame) => frame.lookup(name);
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
        return (input, frame) => {
          const lambda = new FastLambda(params, signature, body, input, frame);
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
      return (input, frame) => new Thunk(procedure, args, input, frame);
    }
    default:
      throw new Error(`fast path: node type ${node.type} passed the subset check`);
  }
}

/** A lambda is looked up in the frames (it may not be bound yet); a built-in or helper is fixed. */
function compileProcedure(procedure: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const name = procedure.value as string;
  if (lambdaNames.has(name)) return (_input, frame) => frame.lookup(name);
  return () => fastFunction(name);
}

function compileCall(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const procedure = compileProcedure(node.procedure as AstNode, lambdaNames);
  const args = (node.arguments as AstNode[]).map((arg) => compileNode(arg, lambdaNames));
  return (input, frame, run) => {
    const proc = procedure(input, frame, run);
    if (proc === undefined) throw FALLBACK;
    const values = args.map((arg) => arg(input, frame, run));
    return apply(run, proc, values, input);
  };
}

function compileArray(node: AstNode, lambdaNames: ReadonlySet<string>): Evaluator {
  const items = (node.expressions as AstNode[]).map((item) => ({ nested: item.value === '[', evaluate: compileNode(item, lambdaNames) }));
  const cons = node.consarray === true;
  return (input, frame, run) => {
    let result: unknown[] = [];
    for (const item of items) {
      const value = item.evaluate(input, frame, run);
      if (value === undefined) continue;
      if (item.nested) result.push(value);
      else result = append(run, result, value) as unknown[];
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
  const pairs = (node.lhs as AstNode[][]).map(([key, value]) => ({ key: compileNode(key, lambdaNames), value: compileNode(value, lambdaNames) }));
  // The usual `{ "number": docNo, ... }` over one object: literal, distinct keys make every group a single
  // pair holding the input itself, so the values can be evaluated directly (same results, no grouping).
  const literalKeys = (node.lhs as AstNode[][]).map(([key]) => (key.type === 'string' ? (key.value as string) : undefined));
  const direct = literalKeys.every((key) => key !== undefined && key !== '_jsonata_lambda' && key !== '_jsonata_function')
    && new Set(literalKeys).size === literalKeys.length;
  return (input, frame, run) => {
    if (direct && !Array.isArray(input)) {
      tick(run);
      const single = Object.create(null) as Record<string, unknown>;
      for (let pairIndex = 0; pairIndex < pairs.length; pairIndex++) {
        const value = pairs[pairIndex].value(input, frame, run);
        if (value !== undefined) single[literalKeys[pairIndex] as string] = value;
      }
      return single;
    }
    const result = Object.create(null) as Record<string, unknown>;
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
  const firstIsVariable = stepNodes[0].type === 'variable';
  const firstIsCons = stepNodes[0].consarray === true;
  const last = steps.length - 1;
  // `a.b.c` and `$o.b.c` over objects: while no step meets an array, JSONata's sequences only ever hold
  // one item and unwrap to it, so the steps can be chained directly. The first array met sends the
  // whole path through the general evaluation below (steps are pure, so evaluating again is safe).
  const chain = !firstIsCons && stepNodes.every((step, index) => step.type === 'name' || (index === 0 && step.type === 'variable'));
  return (input, frame, run) => {
    if (chain && input !== null && typeof input === 'object' && !Array.isArray(input)) {
      let value: unknown = input;
      let index = 0;
      for (; index < steps.length && value !== undefined && !Array.isArray(value); index++) {
        tick(run);
        value = steps[index](value, frame, run);
      }
      if (!Array.isArray(value)) return value;
    }
    let inputSequence: unknown[] = Array.isArray(input) && !firstIsVariable ? input : createSequence(run, input);
    let resultSequence: unknown;
    for (let index = 0; index < steps.length; index++) {
      if (index === 0 && firstIsCons) resultSequence = steps[0](inputSequence, frame, run);
      else resultSequence = evaluateStep(steps[index], inputSequence, frame, run, index === last);
      if (resultSequence === undefined || (resultSequence as unknown[]).length === 0) break;
      inputSequence = resultSequence as unknown[];
    }
    return resultSequence;
  };
}

function evaluateStep(step: Evaluator, input: unknown[], frame: Frame, run: Run, lastStep: boolean): unknown[] {
  const result = createSequence(run);
  for (let index = 0; index < input.length; index++) {
    tick(run);
    const value = step(input[index], frame, run);
    if (value !== undefined) pushItem(run, result, value);
  }
  if (lastStep && result.length === 1 && Array.isArray(result[0]) && !isSequence(result[0])) return result[0] as unknown[];
  const flat = createSequence(run);
  result.forEach((value) => {
    if (!Array.isArray(value) || (value as Sequence).cons) pushItem(run, flat, value);
    else value.forEach((inner) => pushItem(run, flat, inner));
  });
  return flat;
}
