import {
  evaluateGroup, evaluateSort, evaluateStages, frameFromTuple, groupPart, stagesOf, type Compile, type Evaluator, type Pairs, type SortTerms, type Stage,
} from './paths';
import { FALLBACK, checkClock, createSequence, isSequence, type Frame, type Run, type Sequence } from './runtime';
import type { AstNode } from './subset';

/**
 * evaluatePath with everything a path may carry: steps with stages (`a[b = 1]`), tuple streams (`@`,
 * `#`, `%`), order-by steps, `[]` (keep the array) and a group `{...}` after the path. Each step's own
 * value comes from the evaluator of its node (without the stages, which the step applies).
 */
interface Step {
  readonly evaluate: Evaluator;
  readonly stages: readonly Stage[];
  readonly sort?: SortTerms;
  readonly consarray: boolean;
  readonly tuple: boolean;
  readonly focus?: string;
  readonly index?: string;
  readonly ancestor?: string;
}

type Tuple = Record<string, unknown>;

function tick(run: Run): void {
  if ((++run.ticks & 1023) === 0) checkClock(run);
}

function sortTermsOf(node: AstNode, compile: Compile): SortTerms {
  return { terms: (node.terms as AstNode[]).map((term) => ({ key: compile(term.expression as AstNode), descending: term.descending === true })) };
}

export function pairsOf(group: AstNode, compile: Compile): Pairs {
  return (group.lhs as AstNode[][]).map(([key, value]) => [groupPart(key, compile), groupPart(value, compile)] as const);
}

function stepOf(node: AstNode, compile: Compile): Step {
  const own: AstNode = { ...node, stages: undefined };
  return {
    evaluate: node.type === 'sort' ? () => undefined : compile(own),
    stages: stagesOf(node.stages as AstNode[] | undefined, compile),
    sort: node.type === 'sort' ? sortTermsOf(node, compile) : undefined,
    consarray: node.consarray === true,
    tuple: node.tuple === true,
    focus: node.focus as string | undefined,
    index: node.index as string | undefined,
    ancestor: (node.ancestor as { label?: string } | undefined)?.label,
  };
}

/** evaluateStep. */
function evaluateStep(step: Step, input: unknown[], frame: Frame, run: Run, lastStep: boolean): unknown[] {
  if (step.sort) return evaluateStages(step.stages, evaluateSort(step.sort, input, frame, run), frame, run) as unknown[];
  const result = createSequence(run);
  for (let index = 0; index < input.length; index++) {
    tick(run);
    let res = step.evaluate(input[index], frame, run);
    for (const stage of step.stages) res = evaluateStages([stage], res, frame, run);
    if (res !== undefined) result.push(res);
  }
  if (lastStep && result.length === 1 && Array.isArray(result[0]) && !isSequence(result[0])) return result[0] as unknown[];
  const flat = createSequence(run);
  for (const res of result) {
    if (!Array.isArray(res) || (res as Sequence).cons) flat.push(res);
    else for (const value of res as unknown[]) flat.push(value);
  }
  return flat;
}

/** evaluateTupleStep. */
function evaluateTupleStep(step: Step, input: unknown[], bindings: Tuple[] | undefined, frame: Frame, run: Run): Tuple[] {
  if (step.sort) {
    let result: unknown[];
    if (bindings) {
      result = evaluateSort(step.sort, bindings, frame, run);
    } else {
      const sorted = evaluateSort(step.sort, input, frame, run);
      result = createSequence(run);
      (result as Sequence).tupleStream = true;
      for (let index = 0; index < sorted.length; index++) {
        const tuple: Tuple = { '@': sorted[index] };
        if (step.index !== undefined) tuple[step.index] = index;
        result.push(tuple);
      }
    }
    return evaluateStages(step.stages, result, frame, run) as Tuple[];
  }
  const result = createSequence(run) as unknown as Tuple[] & Sequence;
  result.tupleStream = true;
  const tuples = bindings ?? input.map((item) => ({ '@': item }) as Tuple);
  for (const binding of tuples) {
    tick(run);
    let res = step.evaluate(binding['@'], frameFromTuple(frame, binding), run);
    if (res === undefined) continue;
    if (!Array.isArray(res)) res = [res];
    const values = res as unknown[] & { tupleStream?: boolean };
    for (let index = 0; index < values.length; index++) {
      const tuple = Object.create(null) as Tuple;
      Object.assign(tuple, binding);
      if (values.tupleStream) {
        Object.assign(tuple, values[index]);
      } else {
        if (step.focus !== undefined) {
          tuple[step.focus] = values[index];
          tuple['@'] = binding['@'];
        } else {
          tuple['@'] = values[index];
        }
        if (step.index !== undefined) tuple[step.index] = index;
        if (step.ancestor !== undefined) tuple[step.ancestor] = binding['@'];
      }
      result.push(tuple);
    }
  }
  return evaluateStages(step.stages, result, frame, run) as Tuple[];
}

/** The raw value of a path (a sequence, or a tuple stream when the path carries one), before evaluate()'s finish. */
export function compileGeneralPath(node: AstNode, compile: Compile): Evaluator {
  const stepNodes = node.steps as AstNode[];
  const steps = stepNodes.map((step) => stepOf(step, compile));
  const firstIsVariable = stepNodes[0].type === 'variable';
  const keepsTuples = node.tuple === true;
  const keepSingletonArray = node.keepSingletonArray === true;
  const group = node.group === undefined ? undefined : pairsOf(node.group as AstNode, compile);
  return (input, frame, run) => {
    let inputSequence: unknown[] = Array.isArray(input) && !firstIsVariable ? input : createSequence(run, input);
    let resultSequence: unknown;
    let isTupleStream = false;
    let bindings: Tuple[] | undefined;
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index];
      if (step.tuple) isTupleStream = true;
      if (index === 0 && step.consarray) {
        resultSequence = step.evaluate(inputSequence, frame, run);
      } else if (isTupleStream) {
        bindings = evaluateTupleStep(step, inputSequence, bindings, frame, run);
      } else {
        resultSequence = evaluateStep(step, inputSequence, frame, run, index === steps.length - 1);
      }
      if (!isTupleStream && (resultSequence === undefined || (resultSequence as unknown[]).length === 0)) break;
      if (step.focus === undefined) inputSequence = resultSequence as unknown[];
    }
    if (isTupleStream) {
      if (keepsTuples) {
        resultSequence = bindings;
      } else {
        const values = createSequence(run);
        for (const tuple of bindings ?? []) values.push(tuple['@']);
        resultSequence = values;
      }
    }
    if (keepSingletonArray) {
      if (Array.isArray(resultSequence) && (resultSequence as Sequence).cons && !isSequence(resultSequence)) resultSequence = createSequence(run, resultSequence);
      // The interpreter sets the flag on whatever the path gave; on nothing (undefined) that is its error.
      if (resultSequence === undefined || resultSequence === null) throw FALLBACK;
      (resultSequence as Sequence).keepSingleton = true;
    }
    if (group) resultSequence = evaluateGroup(group, isTupleStream ? bindings : resultSequence, frame, run);
    return resultSequence;
  };
}
