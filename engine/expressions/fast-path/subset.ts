import { HELPER_FUNCTIONS } from '../functions';
import { FAST_BUILTINS } from './runtime';

/**
 * Decides whether a whole expression tree (prelude and lambdas included) is in the subset the fast
 * path mirrors exactly. The rules keep it loop-free and non-recursive, so the interpreter's guardrails
 * reduce to checks the fast path can make itself:
 * - recursion depth: no lambda can reach itself, so the nesting of evaluations is bounded by the tree;
 *   an upper bound is computed here and the fast path is only used when it is within `maxDepth`;
 * - sequence length: every sequence the fast path builds checks the limit on each push;
 * - time: the only loops are over input data (path steps, grouping), which check the clock.
 * Functions are never values: a lambda is only bound by `$name := function...` inside a block and only
 * called by name, a built-in is only called. So no function reaches data, arguments or results.
 */
export interface AstNode {
  readonly type: string;
  readonly value?: unknown;
  readonly position?: number;
  readonly [key: string]: unknown;
}

const ALLOWED_KEYS: Readonly<Record<string, readonly string[]>> = {
  path: ['steps'],
  name: ['value'],
  string: ['value'],
  number: ['value'],
  value: ['value'],
  variable: ['value'],
  unary: ['value', 'expression', 'expressions', 'lhs', 'consarray'],
  binary: ['value', 'lhs', 'rhs'],
  condition: ['condition', 'then', 'else'],
  block: ['expressions'],
  bind: ['value', 'lhs', 'rhs'],
  function: ['value', 'procedure', 'arguments'],
  lambda: ['arguments', 'body', 'signature', 'thunk'],
};

const BINARY = new Set(['+', '-', '*', '/', '%', '=', '!=', '<', '<=', '>', '>=', '&', 'and', 'or', 'in']);
const CALLABLE = new Set([...FAST_BUILTINS, ...HELPER_FUNCTIONS.map((helper) => helper.name)]);

class Unsupported extends Error {}

function fail(why: string): never {
  throw new Unsupported(why);
}

interface Analysis {
  /** Names bound to lambdas; each is bound exactly once. */
  readonly lambdas: Map<string, AstNode>;
  /** Names bound to data by `:=` or as a lambda parameter. */
  readonly dataNames: Set<string>;
  /** Names each lambda's body calls (for the recursion check), keyed by the lambda node. */
  readonly calls: Map<AstNode, Set<string>>;
  readonly variablesRead: Set<string>;
}

function children(node: AstNode): AstNode[] {
  switch (node.type) {
    case 'path': return node.steps as AstNode[];
    case 'unary':
      if (node.value === '-') return [node.expression as AstNode];
      if (node.value === '[') return node.expressions as AstNode[];
      return (node.lhs as AstNode[][]).flat();
    case 'binary': return [node.lhs as AstNode, node.rhs as AstNode];
    case 'condition': return [node.condition, node.then, node.else].filter(Boolean) as AstNode[];
    case 'block': return node.expressions as AstNode[];
    case 'bind': return [node.rhs as AstNode];
    case 'function': return node.arguments as AstNode[];
    case 'lambda': return [node.body as AstNode];
    default: return [];
  }
}

function checkShape(node: AstNode): void {
  const allowed = ALLOWED_KEYS[node.type];
  if (!allowed) fail(`node type ${node.type}`);
  for (const key of Object.keys(node)) if (node[key] !== undefined && key !== 'type' && key !== 'position' && !allowed.includes(key)) fail(`${node.type} with ${key}`);
  if (node.type === 'unary' && !['-', '[', '{'].includes(node.value as string)) fail(`unary ${String(node.value)}`);
  if (node.type === 'unary' && node.value === '{' && !(node.lhs as unknown[]).every((pair) => Array.isArray(pair) && pair.length === 2)) fail('object pair');
  if (node.type === 'binary' && !BINARY.has(node.value as string)) fail(`operator ${String(node.value)}`);
}

function walk(node: AstNode, analysis: Analysis, parent: { node?: AstNode; lastInBlock?: boolean; owner?: AstNode }): void {
  checkShape(node);
  const owner = parent.owner;
  if (node.type === 'bind') {
    if (parent.node?.type !== 'block') fail('binding outside a block');
    const target = node.lhs as AstNode;
    if (target?.type !== 'variable' || !target.value) fail('binding target');
    const rhs = node.rhs as AstNode;
    const name = target.value as string;
    if (rhs.type === 'lambda' && !rhs.thunk) {
      if (parent.lastInBlock) fail('a block that gives a function');
      if (analysis.lambdas.has(name)) fail(`$${name} defined twice`);
      analysis.lambdas.set(name, rhs);
      walkLambda(rhs, analysis);
      return;
    }
    analysis.dataNames.add(name);
  }
  if (node.type === 'lambda') {
    if (!node.thunk) fail('a function used as a value');
    const call = node.body as AstNode;
    if (call?.type !== 'function' || (node.arguments as unknown[]).length !== 0) fail('tail call shape');
  }
  if (node.type === 'function') {
    const procedure = node.procedure as AstNode;
    if (procedure?.type !== 'variable' || !procedure.value) fail('call of something other than a named function');
    checkShape(procedure);
    const name = procedure.value as string;
    if (!CALLABLE.has(name)) analysis.calls.get(owner ?? ROOT)?.add(name);
  }
  if (node.type === 'variable') analysis.variablesRead.add(node.value as string);
  const kids = children(node);
  kids.forEach((child, index) => walk(child, analysis, { node, lastInBlock: node.type === 'block' && index === kids.length - 1, owner }));
}

const ROOT: AstNode = { type: 'root' };

function walkLambda(lambda: AstNode, analysis: Analysis): void {
  checkShape(lambda);
  for (const param of lambda.arguments as AstNode[]) {
    if (param?.type !== 'variable' || !param.value) fail('parameter shape');
    analysis.dataNames.add(param.value as string);
  }
  analysis.calls.set(lambda, new Set());
  walk(lambda.body as AstNode, analysis, { node: lambda, owner: lambda });
}

/** Upper bound of the interpreter's evaluation depth (its `stack` guardrail counts nested evaluate calls). */
function depthBound(node: AstNode, lambdas: Map<string, AstNode>, memo: Map<AstNode, number>): number {
  const known = memo.get(node);
  if (known !== undefined) return known;
  let deepest = 0;
  for (const child of children(node)) deepest = Math.max(deepest, depthBound(child, lambdas, memo));
  if (node.type === 'function') {
    const called = lambdas.get((node.procedure as AstNode).value as string);
    if (called) deepest = Math.max(deepest, depthBound(called.body as AstNode, lambdas, memo) + 1);
  }
  const depth = deepest + 2;
  memo.set(node, depth);
  return depth;
}

export interface SubsetVerdict {
  readonly supported: boolean;
  readonly reason?: string;
  readonly lambdaNames: ReadonlySet<string>;
}

/** `reserved`: every name a data variable must not take (all built-ins, helpers). */
export function checkSubset(root: AstNode, maxDepth: number, reserved: ReadonlySet<string>): SubsetVerdict {
  const analysis: Analysis = { lambdas: new Map(), dataNames: new Set(), calls: new Map([[ROOT, new Set()]]), variablesRead: new Set() };
  try {
    walk(root, analysis, {});
    const lambdaNames = new Set(analysis.lambdas.keys());
    for (const name of lambdaNames) if (reserved.has(name)) fail(`$${name} hides a built-in`);
    for (const name of analysis.dataNames) if (lambdaNames.has(name) || reserved.has(name)) fail(`$${name} bound to data and to a function`);
    for (const name of analysis.variablesRead) if (lambdaNames.has(name) || reserved.has(name)) fail(`$${name} used as a value`);
    for (const called of analysis.calls.values()) for (const name of called) if (!lambdaNames.has(name)) fail(`call of $${name}`);
    // No lambda may reach itself: depth-first over the call graph.
    const state = new Map<string, 'open' | 'done'>();
    const visit = (name: string): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'open') fail(`$${name} is recursive`);
      state.set(name, 'open');
      for (const next of analysis.calls.get(analysis.lambdas.get(name) as AstNode) ?? []) visit(next);
      state.set(name, 'done');
    };
    for (const name of lambdaNames) visit(name);
    if (depthBound(root, analysis.lambdas, new Map()) > maxDepth) fail('deeper than the depth limit');
    return { supported: true, lambdaNames };
  } catch (error) {
    if (error instanceof Unsupported) return { supported: false, reason: error.message, lambdaNames: new Set() };
    throw error;
  }
}
