import { calledOnlyArguments } from '../called-only';
import { filterJoinShape } from '../joins';
import { needsGeneral } from '../language';
import { CALL_DEPTH } from '../runtime';
import { isEvalCall, treeDepth, type AstNode } from '../subset';
import { filterFunction, filterJoinCall, isWrittenFilter, isWrittenSortPath, isWrittenStagedPath, sortPathFunction } from './filters';
import { fieldRead, numberLiteral, plainLiteral, textLiteral } from './literals';
import { isWrittenRegex, regexExpression } from './regex';
import { arrayFunction, blockFunction, objectFunction, pathFunction } from './structures';
import type { Unit, Writer } from './unit';

/**
 * JavaScript for one node of a tree that passed checkSubset, as an expression over the names `input`
 * (or the name given), `frame` and `run`; the nodes that need statements (path, block, array and
 * object constructors) become functions of their own, called here. Each case does what compileNode
 * (compile-node.ts) does for the node, with the same helpers.
 */
function expression(node: AstNode, unit: Unit, input = 'input'): string {
  if (isWrittenApply(node)) return applyExpression(node, unit, input);
  if (isWrittenLambda(node)) return lambdaExpression(node, unit, input);
  if (isWrittenRegex(node)) return regexExpression(node, unit);
  // What this generator does not write itself yet runs as the node's closure (compile-node.ts, language.ts).
  if (needsGeneral(node) && !writtenDespiteFilters(node)) return `${unit.closure(node, closureWhy(node))}(${input}, frame, run)`;
  const nodeFunction = functionOf(node, unit);
  if (nodeFunction !== undefined) return `${nodeFunction}(${input}, frame, run)`;
  switch (node.type) {
    case 'string': return textLiteral(node.value as string);
    case 'number': return numberLiteral(node.value as number) ?? unit.constant(node.value);
    case 'value': return plainLiteral(node.value) ?? unit.constant(node.value);
    case 'name': return fieldRead(input, node.value as string);
    case 'variable':
      if (node.value === '') return `finish(${input} && ${input}.outerWrapper ? ${input}[0] : ${input}, false)`;
      return `finish(readVariable(run, frame, ${textLiteral(node.value as string)}), false)`;
    case 'unary': return `negate(${expression(node.expression as AstNode, unit, input)})`;
    case 'binary': return binaryExpression(node, unit, input);
    case 'condition': {
      const otherwise = node.else === undefined ? 'undefined' : expression(node.else as AstNode, unit, input);
      return `(toBoolean(${expression(node.condition as AstNode, unit, input)}) ? ${expression(node.then as AstNode, unit, input)} : ${otherwise})`;
    }
    case 'bind': return bindExpression(node, unit, input);
    case 'function': return callExpression(node, unit, input);
    default: throw new Error(`codegen: node type ${node.type} passed the subset check`);
  }
}

/** The name of a function `(input, frame, run)` for the node: its own, or one that returns its expression. */
export function functionFor(node: AstNode, unit: Unit): string {
  return functionOf(node, unit) ?? unit.memo(node, (name) => `function ${name}(input, frame, run) { return ${expression(node, unit)}; }`);
}

const WRITER: Writer = { expression, functionFor };

/** The nodes with filters or an order-by that filters.ts writes as code (the others with them stay closures). */
function writtenDespiteFilters(node: AstNode): boolean {
  return isWrittenFilter(node) || isWrittenSortPath(node) || isWrittenStagedPath(node);
}

/** The nodes written as functions of their own; undefined for those written as expressions. */
function functionOf(node: AstNode, unit: Unit): string | undefined {
  if (isWrittenApply(node) || isWrittenLambda(node) || isWrittenRegex(node)) return undefined;
  if (isWrittenFilter(node)) return filterFunction(node, unit, WRITER);
  if (isWrittenSortPath(node)) return sortPathFunction(node, unit, WRITER);
  if (isWrittenStagedPath(node)) return pathFunction(node, unit, WRITER);
  if (needsGeneral(node)) return unit.closure(node, closureWhy(node));
  switch (node.type) {
    case 'path': return pathFunction(node, unit, WRITER);
    case 'block': return blockFunction(node, unit, WRITER);
    case 'unary':
      if (node.value === '[') return arrayFunction(node, unit, WRITER);
      if (node.value === '{') return objectFunction(node, unit, WRITER);
      return undefined;
    case 'lambda': return tailCallFunction(node, unit);
    default: return undefined;
  }
}

/**
 * A tail call inside a lambda body (the parser's thunk): it gives a Thunk that the caller's trampoline
 * runs (runtime.ts's apply), with the callee and each argument as functions, as compileNode's.
 */
function tailCallFunction(node: AstNode, unit: Unit): string {
  return unit.memo(node, (name) => {
    const call = node.body as AstNode;
    const callee = (call.procedure as AstNode).value as string;
    const isLambda = unit.lambdaNames.has(callee);
    const procedure = unit.name('p');
    const builtin = isLambda ? '' : unit.name('b');
    const site = isLambda ? 'undefined' : unit.name('s');
    const args = unit.name('a');
    // The trampoline hands a tail call's arguments on unwrapped; a function the built-in only calls is not marked (called-only.ts).
    const calledOnly = isLambda ? [] : calledOnlyArguments(callee, call.arguments as AstNode[]);
    const argFunctions = (call.arguments as AstNode[]).map((arg, index) => (calledOnly[index] === true ? calledOnlyFunction(arg, unit) : functionFor(arg, unit)));
    return [
      // A built-in is looked up once, as a direct call's is.
      isLambda
        ? `function ${procedure}(input, frame, run) { return lookupVariable(run, frame, ${textLiteral(callee)}); }`
        : `let ${builtin}; function ${procedure}() { return ${builtin} === undefined ? (${builtin} = resolveBuiltin(${textLiteral(callee)})) : ${builtin}; }`,
      isLambda ? '' : `const ${site} = new CallSiteSignature();`,
      `const ${args} = [${argFunctions.join(', ')}];`,
      `function ${name}(input, frame, run) { return new Thunk(${procedure}, ${args}, input, frame, ${site}); }`,
    ].filter(Boolean).join('\n');
  });
}

/** A tail call's argument the built-in only calls: its value, with the evaluation's mark put back as it was. */
function calledOnlyFunction(node: AstNode, unit: Unit): string {
  const name = unit.name('f');
  unit.lines.push(`function ${name}(input, frame, run) { return keepMark(run, run.functionsMade, ${expression(node, unit)}); }`);
  return name;
}

/**
 * `lhs ~> $f(args)` with `$f` a name: the call with the left side as its first argument, as language.ts's
 * applyValue (callValue) makes it. The left side is handed over as it is (not wrapped as a function
 * argument), the others as functionArgument wraps them; the function is read as a variable (a built-in
 * when nothing binds the name). Any other `~>` (a function value on the right, a call of a path) stays a
 * closure. Written so, the left side (a whole list's transform, often) is generated code, not closures.
 */
function isWrittenApply(node: AstNode): boolean {
  if (node.type !== 'apply' || node.predicate !== undefined || node.group !== undefined || node.keepArray !== undefined) return false;
  const rhs = node.rhs as AstNode;
  return rhs.type === 'function' && (rhs.procedure as AstNode).type === 'variable' && !isEvalCall(rhs) && rhs.predicate === undefined && rhs.group === undefined && rhs.keepArray === undefined;
}

function applyExpression(node: AstNode, unit: Unit, input: string): string {
  const call = node.rhs as AstNode;
  const left = expression(node.lhs as AstNode, unit, input);
  const name = (call.procedure as AstNode).value as string;
  // Only called, never part of the answer: read without marking the evaluation as one that made a function value (called-only.ts).
  const procedure = `lookupVariable(run, frame, ${textLiteral(name)})`;
  // The arguments are written inside the function below, whose parameter is `input`.
  const calledOnly = unit.lambdaNames.has(name) ? [] : calledOnlyArguments(name, call.arguments as AstNode[], 1);
  const args = (call.arguments as AstNode[]).map((arg, index) => argumentValue(arg, unit, 'input', calledOnly[index] === true));
  // The order of evaluateApplyExpression and evaluateFunction: the left side, the function, its arguments.
  const written = unit.name('x');
  // A built-in's signature is planned per call site (signature-plan.ts), as for a call by name.
  const site = unit.name('s');
  unit.lines.push(`const ${site} = new CallSiteSignature();`);
  unit.lines.push(`function ${written}(left, procedure, input, frame, run) { return finish(apply(run, procedure, [left, ${args.join(', ')}], input, ${site}), false); }`);
  return `${written}(${left}, ${procedure}, ${input}, frame, run)`;
}

/** `function($a, $b) { ... }` as a value (an argument of $map, $reduce, $sort...): not a tail call's thunk. */
function isWrittenLambda(node: AstNode): boolean {
  return node.type === 'lambda' && node.thunk !== true && node.predicate === undefined && node.group === undefined && node.keepArray === undefined;
}

/** The lambda as language.ts's lambdaValue makes it, its body generated as a bound function's is (bindExpression). */
function lambdaExpression(node: AstNode, unit: Unit, input: string): string {
  const params = (node.arguments as AstNode[]).map((param) => textLiteral(param.value as string));
  const signature = node.signature === undefined ? 'undefined' : unit.constant(node.signature);
  const body = functionFor(node.body as AstNode, unit);
  const cost = treeDepth(node.body as AstNode) + CALL_DEPTH;
  return `((run.functionsMade = true), new FastLambda([${params.join(', ')}], ${signature}, ${body}, ${input}, frame, ${cost}))`;
}

function binaryExpression(node: AstNode, unit: Unit, input: string): string {
  const op = node.value as string;
  const lhs = expression(node.lhs as AstNode, unit, input);
  const rhs = expression(node.rhs as AstNode, unit, input);
  if (op === 'and') return `(boolize(${lhs}) && boolize(${rhs}))`;
  if (op === 'or') return `(boolize(${lhs}) || boolize(${rhs}))`;
  // Arguments are evaluated left to right: the left operand first, as in the closures and the interpreter.
  const value = `binary(${textLiteral(op)}, ${lhs}, ${rhs})`;
  return op === '&' ? `checkText(run, ${value})` : value;
}

function bindExpression(node: AstNode, unit: Unit, input: string): string {
  const name = textLiteral((node.lhs as AstNode).value as string);
  const rhs = node.rhs as AstNode;
  if (rhs.type !== 'lambda') return `(frame.vars[${name}] = ${expression(rhs, unit, input)})`;
  const params = (rhs.arguments as AstNode[]).map((param) => textLiteral(param.value as string));
  const signature = rhs.signature === undefined ? 'undefined' : unit.constant(rhs.signature);
  const body = functionFor(rhs.body as AstNode, unit);
  const cost = treeDepth(rhs.body as AstNode) + CALL_DEPTH;
  return `(frame.vars[${name}] = new FastLambda([${params.join(', ')}], ${signature}, ${body}, ${input}, frame, ${cost}))`;
}

function callExpression(node: AstNode, unit: Unit, input: string): string {
  // `$filter(list, function($v) { $v.key = $o.id })` is a join, answered through an index (filters.ts, joins.ts).
  const joinShape = filterJoinShape(node, unit.lambdaNames);
  if (joinShape) {
    const calledOnly = calledOnlyArguments('filter', node.arguments as AstNode[]);
    return filterJoinCall(node, joinShape, unit, input, (arg) => argumentValue(arg, unit, 'input', calledOnly[(node.arguments as AstNode[]).indexOf(arg)] === true), functionFor);
  }
  const name = (node.procedure as AstNode).value as string;
  if (unit.lambdaNames.has(name)) {
    // A function value passed on is wrapped as the interpreter wraps it (runtime.ts's functionArgument).
    const args = `[${(node.arguments as AstNode[]).map((arg) => argumentValue(arg, unit, input)).join(', ')}]`;
    return `finish(apply(run, needProcedure(lookupVariable(run, frame, ${textLiteral(name)})), ${args}, ${input}, undefined), false)`;
  }
  // A built-in or helper: found at the first call, its signature planned per call site (signature-plan.ts).
  const calledOnly = calledOnlyArguments(name, node.arguments as AstNode[]);
  const builtinArgs = `[${(node.arguments as AstNode[]).map((arg, index) => argumentValue(arg, unit, input, calledOnly[index])).join(', ')}]`;
  const builtin = unit.name('b');
  const site = unit.name('s');
  unit.lines.push(`let ${builtin}; const ${site} = new CallSiteSignature();`);
  return `finish(applyBuiltin(run, ${builtin} === undefined ? (${builtin} = resolveBuiltin(${textLiteral(name)})) : ${builtin}, ${builtinArgs}, ${input}, ${site}), false)`;
}

/**
 * An argument of a call, wrapped by functionArgument when it may be a function value. A literal, an
 * operator's result (`&`, `=`, `+`, `and`, `..`), a negation and a list or object constructor are never
 * one (a list or object holding a function is not wrapped either), so their calls skip the check; with a
 * filter, grouping or sort attached the node may give an item, which is checked as any other argument.
 */
function argumentValue(arg: AstNode, unit: Unit, input: string, calledOnly = false): string {
  const value = expression(arg, unit, input);
  // The flag is read before the argument is evaluated (arguments run left to right), and put back after.
  if (calledOnly) return `calledOnly(run, run.functionsMade, ${value})`;
  return neverAFunction(arg) ? value : `functionArgument(run, ${value})`;
}

function neverAFunction(node: AstNode): boolean {
  if (node.predicate !== undefined || node.group !== undefined || node.stages !== undefined || node.keepArray !== undefined) return false;
  switch (node.type) {
    case 'string': case 'number': case 'value': case 'binary': return true;
    case 'unary': return node.value === '-' || node.value === '[' || node.value === '{';
    default: return false;
  }
}

/** What `dry-run --explain` says of a node the generator leaves to its closure. */
function closureWhy(node: AstNode): string {
  if (node.predicate !== undefined) return 'a filter [...] after a value';
  if (node.type === 'path') return 'a path with filters, order-by, tuple bindings (@, #) or grouping';
  if (node.group !== undefined) return 'grouping {...}';
  if (node.type === 'lambda') return 'a function value';
  return `${node.type} ${typeof node.value === 'string' ? node.value : ''}`.trim();
}
