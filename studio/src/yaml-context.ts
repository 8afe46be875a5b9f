import schema from '../../schemas/mapping.schema.json';

/**
 * Where the cursor stands in the mapping, as the keys above it (`system`, `auth`), and the settings the
 * mapping format's schema allows there: completion under `system:` offers system settings, not operation
 * names. Read from the indentation alone, so it works while the text does not parse yet.
 */
interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode & { description?: string }>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
}

const ROOT = schema as unknown as SchemaNode & { definitions?: Record<string, SchemaNode> };

function resolved(node: SchemaNode): SchemaNode {
  const name = node.$ref?.replace('#/definitions/', '');
  return name && ROOT.definitions?.[name] ? { ...ROOT.definitions[name], ...node, $ref: undefined } : node;
}

/** The node with its alternatives (oneOf, anyOf, allOf) and a list's items flattened in. */
function branches(node: SchemaNode): SchemaNode[] {
  const own = resolved(node);
  const alternatives = [...(own.oneOf ?? []), ...(own.anyOf ?? []), ...(own.allOf ?? [])];
  return [own, ...alternatives.flatMap(branches), ...(own.items ? branches(own.items) : [])];
}

function child(node: SchemaNode, key: string): SchemaNode | undefined {
  for (const branch of branches(node)) {
    const property = branch.properties?.[key];
    if (property) return property;
  }
  for (const branch of branches(node)) if (typeof branch.additionalProperties === 'object') return branch.additionalProperties;
  return undefined;
}

/** The keys that hold the line at `lineIndex`, outermost first, from the lines above with less indentation. */
export function keyPath(lines: readonly string[], lineIndex: number, column: number): string[] {
  const path: string[] = [];
  let indent = (lines[lineIndex].slice(0, column).match(/^[\s-]*/)?.[0] ?? '').length;
  for (let index = lineIndex - 1; index >= 0 && indent > 0; index -= 1) {
    const found = /^([\s-]*)([A-Za-z_$][\w$-]*)\s*:/.exec(lines[index]);
    if (!found || found[1].length >= indent) continue;
    path.unshift(found[2]);
    indent = found[1].length;
  }
  return path;
}

/** The settings allowed under the path, with their descriptions; undefined when the schema does not say. */
export function settingsAt(path: readonly string[]): { name: string; description: string }[] | undefined {
  let node: SchemaNode | undefined = ROOT;
  for (const key of path) {
    node = node && child(node, key);
    if (!node) return undefined;
  }
  const found = new Map<string, string>();
  for (const branch of branches(node)) {
    for (const [name, property] of Object.entries(branch.properties ?? {})) if (!found.has(name) || !found.get(name)) found.set(name, property.description ?? '');
  }
  return found.size === 0 ? undefined : [...found].map(([name, description]) => ({ name, description }));
}
