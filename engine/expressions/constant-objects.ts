/**
 * Lookup tables written inline, such as `{ "PCE": "Piece", "KG": "Kilogram" }.$lookup($, $code)`, are
 * rebuilt by JSONata every time they are reached: once per order line in the example mapping, 14 key
 * evaluations each. An object constructor whose keys and values are all plain literals always gives the
 * same object, so it is built once at load and the expression reads it from a variable instead.
 *
 * This works on the parsed expression tree (`expression.ast()`, the tree JSONata evaluates). Only the
 * exact literal form is touched: a node with any other property (a predicate, a sort, a focus, a group)
 * or a value that is not a plain string, number, boolean or null is left for JSONata to evaluate, and so
 * are duplicate keys, which JSONata reports at evaluation.
 */

interface AstNode {
  readonly type?: unknown;
  readonly value?: unknown;
  readonly position?: number;
  readonly lhs?: unknown;
}

const LITERAL_OBJECT_KEYS = new Set(['type', 'value', 'position', 'lhs']);
const LITERAL_NODE_KEYS = new Set(['type', 'value', 'position']);
const SCALAR_TYPES = new Set(['string', 'number', 'value']);

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null;
}

function isLiteral(node: unknown, types: ReadonlySet<string>): node is AstNode {
  return isNode(node) && types.has(node.type as string) && Object.keys(node).every((key) => LITERAL_NODE_KEYS.has(key));
}

/** The object a constructor node always gives, or undefined when it is not a plain literal. */
function literalObject(node: AstNode): Readonly<Record<string, unknown>> | undefined {
  if (node.type !== 'unary' || node.value !== '{' || !Array.isArray(node.lhs) || node.lhs.length === 0) return undefined;
  if (!Object.keys(node).every((key) => LITERAL_OBJECT_KEYS.has(key))) return undefined;
  const result: Record<string, unknown> = {};
  for (const pair of node.lhs as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const [key, value] = pair as [unknown, unknown];
    if (!isLiteral(key, new Set(['string'])) || !isLiteral(value, SCALAR_TYPES)) return undefined;
    const name = key.value as string;
    if (Object.prototype.hasOwnProperty.call(result, name)) return undefined;
    result[name] = value.value;
  }
  return Object.freeze(result);
}

/**
 * Replaces each literal object constructor in the tree with a variable and returns the values to bind
 * (`expression.assign(name, value)`). The values are frozen: one object serves every request.
 */
export function foldLiteralObjects(ast: unknown): Map<string, Readonly<Record<string, unknown>>> {
  const constants = new Map<string, Readonly<Record<string, unknown>>>();
  const seen = new Set<object>();
  const visit = (holder: Record<string | number, unknown>, slot: string | number): void => {
    const node = holder[slot];
    if (!isNode(node) || seen.has(node)) return;
    seen.add(node);
    const folded = literalObject(node);
    if (folded) {
      const name = `__engineLiteral${constants.size}`;
      constants.set(name, folded);
      holder[slot] = { type: 'variable', value: name, position: node.position };
      return;
    }
    for (const key of Object.keys(node)) visit(node as Record<string, unknown>, key);
  };
  // The root itself is JSONata's own reference and cannot be swapped; a whole-expression literal stays.
  if (isNode(ast)) {
    seen.add(ast);
    for (const key of Object.keys(ast)) visit(ast as Record<string, unknown>, key);
  }
  return constants;
}
