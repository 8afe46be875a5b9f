import { HELPER_FUNCTIONS } from '../functions';
import { JSONATA_BUILTINS, NOT_COMPILED_BUILTINS } from './runtime';

/**
 * Decides whether an expression tree (prelude and lambdas included) runs on the fast path, which mirrors
 * the whole of JSONata's evaluator (compile-node.ts, language.ts): every node type but the parser's
 * recovered errors, every built-in but NOT_COMPILED_BUILTINS. The interpreter's guardrails hold inside it:
 * - recursion depth: Run.depth bounds the interpreter's evaluation depth from above (the tree's depth,
 *   plus each function call under way with the depth of its body); past maxDepth the interpreter runs;
 * - sequence length: every sequence the fast path builds checks the limit on each push;
 * - time: every loop (path steps, filters, grouping, sorting, the trampoline of tail calls, the calls of
 *   a higher-order built-in) checks the clock.
 * It also tells which variable names are looked up in the frames at run time (`lambdaNames`): the names
 * the tree binds (`:=`, parameters, `@$x`, `#$i`) and those that name no built-in; any other name is a
 * built-in (a binding given at evaluation may not take a built-in's name: index.ts).
 */
export interface AstNode {
  readonly type: string;
  readonly value?: unknown;
  readonly position?: number;
  readonly [key: string]: unknown;
}

const NODE_TYPES = new Set([
  'path', 'name', 'string', 'number', 'value', 'variable', 'unary', 'binary', 'condition', 'block', 'bind', 'function', 'lambda',
  'partial', 'apply', 'transform', 'sort', 'wildcard', 'descendant', 'parent', 'regex', 'filter', 'index', 'operator',
]);

/** Keys of a node that hold no nodes: labels of the parent operator, a lambda's parsed signature. */
const NOT_CHILDREN = new Set(['slot', 'ancestor', 'seekingParent', 'signature', 'position', 'value', 'type']);

const BUILTIN_NAMES: ReadonlySet<string> = new Set([...JSONATA_BUILTINS, ...HELPER_FUNCTIONS.map((helper) => helper.name)]);

class Unsupported extends Error {}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Every object below a node that is a node, or holds some (stages, sort terms, object pairs), in order. */
function* childNodes(node: object): Generator<AstNode> {
  for (const [key, value] of Object.entries(node)) {
    if (NOT_CHILDREN.has(key) || typeof value !== 'object' || value === null || value instanceof RegExp) continue;
    yield* nodesIn(value);
  }
}

function* nodesIn(value: object): Generator<AstNode> {
  if (isNode(value)) {
    yield value;
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null) yield* nodesIn(item as object);
    return;
  }
  yield* childNodes(value);
}

/**
 * An upper bound of the interpreter's evaluation depth for a tree, not counting the bodies of the
 * functions it calls: each evaluate() of a node evaluates its children (its steps, filters, keys, terms)
 * at most one level deeper.
 */
export function treeDepth(node: AstNode): number {
  let deepest = 0;
  for (const child of childNodes(node)) deepest = Math.max(deepest, treeDepth(child));
  return deepest + 1;
}

interface Names {
  readonly bound: Set<string>;
  readonly read: Set<string>;
}

function walk(node: AstNode, names: Names): void {
  if (!NODE_TYPES.has(node.type)) throw new Unsupported(node.type === 'error' ? 'a syntax error the parser recovered from' : `node type ${node.type}`);
  if (node.type === 'variable') names.read.add(node.value as string);
  // `$eval(...)` called by its name runs (eval.ts); only its procedure is not a read of the value.
  if (node.type === 'function' && isEvalCall(node)) {
    for (const child of node.arguments as AstNode[]) walk(child, names);
    return;
  }
  if (node.type === 'bind') names.bound.add((node.lhs as AstNode).value as string);
  if (node.type === 'lambda') for (const param of node.arguments as AstNode[]) names.bound.add(param.value as string);
  if (typeof node.focus === 'string') names.bound.add(node.focus);
  if (typeof node.index === 'string') names.bound.add(node.index);
  for (const child of childNodes(node)) walk(child, names);
}

/** A call `$eval(...)` by name. */
export function isEvalCall(node: AstNode): boolean {
  const procedure = node.procedure as AstNode;
  return procedure.type === 'variable' && procedure.value === 'eval';
}

export interface SubsetVerdict {
  readonly supported: boolean;
  readonly reason?: string;
  /** The names looked up in the frames at run time (see above). */
  readonly lambdaNames: ReadonlySet<string>;
}

/** `reserved`: every name a binding given at evaluation must not take (all built-ins, helpers). */
export function checkSubset(root: AstNode, maxDepth: number, reserved: ReadonlySet<string>): SubsetVerdict {
  const names: Names = { bound: new Set(), read: new Set() };
  try {
    walk(root, names);
    for (const name of names.read) {
      if (!names.bound.has(name) && name in NOT_COMPILED_BUILTINS) throw new Unsupported(NOT_COMPILED_BUILTINS[name]);
    }
    if (treeDepth(root) + 1 > maxDepth) throw new Unsupported('deeper than the depth limit');
    const lambdaNames = new Set([...names.bound, ...[...names.read].filter((name) => !BUILTIN_NAMES.has(name) || !reserved.has(name))]);
    return { supported: true, lambdaNames };
  } catch (error) {
    if (error instanceof Unsupported) return { supported: false, reason: error.message, lambdaNames: new Set() };
    throw error;
  }
}
