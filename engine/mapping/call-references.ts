import jsonata from 'jsonata';

/**
 * The paths an expression reads from its root document (`calls.<name>...`, `input.<field>...`), found on
 * JSONata's parse tree rather than in the text, so `"calls.x"` in a string literal, `$order.calls.x` or a
 * field named calls inside an ERP answer (`calls.orders.items[calls.x = 1]`, where the inner calls is a
 * field of each item) are not mistaken for references.
 *
 * A root path is a path that starts, where the expression's root document is the context, with a plain
 * name (or `$$.name`, or `$.name` at the root). The root is the context at the top of the expression, in
 * function arguments, blocks, conditions, object and array constructors and lambda bodies (a JSONata
 * function sees the context it was written in); it is not inside a path after its first step, in a
 * filter `[...]`, a sort `^(...)` or a group `{...}` on a path, or in a transform.
 *
 * Not found (and so not checked): a name computed at run time (`$lookup(calls, $name)`, `calls.*`), a
 * root held in a variable (`$c := calls; $c.x`), and the bodies of the mapping's `functions:`, which
 * are checked once on their own and do not know which operation uses them.
 */

/** One plain name of a root path. */
export interface PathName {
  readonly name: string;
  /** 0-based offset of the name's first character inside the expression text. */
  readonly offset: number;
}

/** The plain names a root path starts with, in order (`calls`, `order`, `body`, `customer`), up to its first step that is not one. */
export type RootPath = readonly PathName[];


interface Node {
  readonly type?: string;
  readonly value?: unknown;
  readonly position?: number;
  readonly steps?: Node[];
  readonly stages?: Node[];
  readonly group?: unknown;
  readonly [key: string]: unknown;
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !(value instanceof RegExp);

/** Where a name token starts: JSONata records the position just after it (after the closing ` of a quoted name). */
function startOf(text: string, node: Node): number | undefined {
  const name = String(node.value);
  const end = typeof node.position === 'number' ? node.position : undefined;
  if (end === undefined) return undefined;
  for (const start of [end - name.length, end - name.length - 1]) if (start >= 0 && text.startsWith(name, start)) return start;
  return undefined;
}

/**
 * The root paths of `text`; the text must compile (the caller reports syntax errors). `parsed` is its
 * parse tree when the caller has it (a compiled expression's), which saves a parse.
 */
export function rootPaths(text: string, parsed?: unknown): RootPath[] {
  let tree: Node;
  try {
    tree = (parsed ?? jsonata(text).ast()) as Node;
  } catch {
    return [];
  }
  const found: RootPath[] = [];
  const seen = new WeakSet<object>();

  const visit = (value: unknown, root: boolean): void => {
    if (Array.isArray(value)) {
      for (const element of value) visit(element, root);
      return;
    }
    if (!isNode(value) || seen.has(value)) return;
    seen.add(value);
    if (value.type === 'path' && Array.isArray(value.steps)) {
      path(value.steps, root);
      visit(value.group, false);
      for (const [key, child] of Object.entries(value)) if (key !== 'steps' && key !== 'group') visit(child, root);
      return;
    }
    if (value.type === 'transform') {
      for (const child of Object.values(value)) visit(child, false);
      return;
    }
    for (const [key, child] of Object.entries(value)) visit(child, root && key !== 'stages' && key !== 'predicate' && key !== 'terms');
  };

  const path = (steps: Node[], root: boolean): void => {
    let first = 0;
    let atRoot = root;
    const head = steps[0];
    if (head?.type === 'variable' && head.value === '$') [first, atRoot] = [1, true]; // $$ is the root anywhere
    else if (head?.type === 'variable' && head.value === '' && root) first = 1; // $ at the root
    else if (head?.type === 'variable') atRoot = false;
    if (atRoot) {
      const names: PathName[] = [];
      for (const step of steps.slice(first)) {
        const offset = step.type === 'name' && typeof step.value === 'string' ? startOf(text, step) : undefined;
        if (offset === undefined) break;
        names.push({ name: String(step.value), offset });
      }
      if (names.length > 0) found.push(names);
    }
    // The first step is evaluated in the path's own context; every later step (and every filter) per item.
    steps.forEach((step, index) => visit(step, root && index === 0));
  };

  visit(tree, true);
  return found.sort((a, b) => a[0].offset - b[0].offset);
}

/** The `calls.<name>` references among an expression's root paths: the name and where it stands. */
export function callReferences(paths: readonly RootPath[]): PathName[] {
  return paths.filter((names) => names[0].name === 'calls' && names.length > 1).map((names) => names[1]);
}
