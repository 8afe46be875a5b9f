import type { AstNode } from '../subset';
import { stagedStepFunction } from './filters';
import { groupFunction } from './group-by';
import { fieldRead, textLiteral } from './literals';
import { TICK, type Unit, type Writer } from './unit';

/**
 * The nodes written as functions of their own, each the generated form of compile-node.ts's closure for
 * it: a path's steps unrolled while they follow one value, an object constructor's literal keys written
 * as property stores, an array constructor's items one after the other.
 */

export function pathFunction(node: AstNode, unit: Unit, writer: Writer): string {
  const { expression } = writer;
  // A step with filters (filters.ts) is a function of its own; the others as their nodes are written.
  const functionFor = (step: AstNode, of: Unit): string => (step.stages === undefined ? writer.functionFor(step, of) : stagedStepFunction(step, of, writer));
  return unit.memo(node, (name) => {
    const steps = node.steps as AstNode[];
    const stepFunctions = unit.name('S');
    const last = steps.length - 1;
    const firstIsVariable = steps[0].type === 'variable';
    const firstIsCons = steps[0].consarray === true;
    const body: string[] = [`const ${stepFunctions} = [${steps.map((step) => functionFor(step, unit)).join(', ')}];`];
    body.push(`function ${name}(input, frame, run) {`, 'let v = input, items;');
    if (!firstIsCons) {
      // While every step gives one value that is not an array, follow it (compilePath's first half).
      if (!firstIsVariable) body.push('if (!Array.isArray(input)) {');
      steps.forEach((step, index) => {
        const value = step.stages !== undefined ? `${functionFor(step, unit)}(v, frame, run)` : step.type === 'name' ? fieldRead('v', step.value as string) : expression(step, unit, 'v');
        body.push(TICK, `v = ${value};`, 'if (v === undefined) return undefined;');
        if (index === last) body.push('return Array.isArray(v) ? finish(lastStepArray(run, v), false) : v;');
        else body.push(`if (Array.isArray(v)) { items = stepItems(run, v); return items === undefined ? undefined : pathRest(run, frame, ${stepFunctions}, items, ${index + 1}); }`);
      });
      if (!firstIsVariable) body.push('}');
    }
    if (firstIsVariable && !firstIsCons) return [...body, '}'].join('\n');
    body.push(`items = ${firstIsVariable ? 'createSequence(run, input)' : 'Array.isArray(input) ? input : createSequence(run, input)'};`);
    if (firstIsCons) {
      body.push(`const first = ${stepFunctions}[0](items, frame, run);`, 'if (first === undefined || first.length === 0) return finish(first, false);');
      body.push(`return pathRest(run, frame, ${stepFunctions}, first, 1);`);
    } else {
      body.push(`return pathRest(run, frame, ${stepFunctions}, items, 0);`);
    }
    return [...body, '}'].join('\n');
  });
}

export function blockFunction(node: AstNode, unit: Unit, { expression }: Writer): string {
  return unit.memo(node, (name) => {
    const expressions = (node.expressions as AstNode[]).map((child) => expression(child, unit));
    const result = expressions.pop() ?? 'undefined';
    return [`function ${name}(input, frame, run) {`, 'frame = new Frame(frame);', ...expressions.map((line) => `${line};`), `return ${result};`, '}'].join('\n');
  });
}

export function arrayFunction(node: AstNode, unit: Unit, { expression }: Writer): string {
  return unit.memo(node, (name) => {
    const body = [`function ${name}(input, frame, run) {`, 'const r = []; let x;'];
    for (const item of node.expressions as AstNode[]) {
      // An array constructor inside one is one item; any other list adds its items (compileArray).
      const add = item.value === '[' ? 'r.push(x);' : 'appendItem(run, r, x);';
      body.push(`x = ${expression(item, unit)};`, `if (x !== undefined) ${add}`);
    }
    body.push(node.consarray === true ? 'return markCons(r);' : 'return r;', '}');
    return body.join('\n');
  });
}

/**
 * Literal, distinct keys over one object (the usual `{ "number": docNo }`): written out. Over a list, or
 * with computed or repeated keys, the constructor groups its input (group-by.ts), as compileObject does.
 */
export function objectFunction(node: AstNode, unit: Unit, writer: Writer): string {
  const { expression } = writer;
  const pairs = node.lhs as AstNode[][];
  const keys = pairs.map(([key]) => (key.type === 'string' ? (key.value as string) : undefined));
  const direct = keys.every((key) => key !== undefined && key !== '_jsonata_lambda' && key !== '_jsonata_function') && new Set(keys).size === keys.length;
  if (!direct) return unit.memo(node, (name) => `function ${name}(input, frame, run) { return ${groupFunction(pairs, unit, writer)}(input, frame, run); }`);
  return unit.memo(node, (name) => {
    const grouping = groupFunction(pairs, unit, writer);
    const body = [`function ${name}(input, frame, run) {`, `if (Array.isArray(input)) return ${grouping}(input, frame, run);`, TICK, 'const o = emptyObject(); let x;'];
    pairs.forEach(([, value], index) => body.push(`x = ${expression(value, unit)};`, `if (x !== undefined) o[${textLiteral(keys[index] as string)}] = x;`));
    body.push('return o;', '}');
    return body.join('\n');
  });
}
