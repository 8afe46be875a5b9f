import { contractSchemaFile, contractSchemaFiles } from './schema-files';

/**
 * The contract's JSON Schema files as OpenAPI components. Each file becomes one component named after
 * it (`enums.schema.json` → `enums`), its `definitions` kept inside; every `$ref` (relative to a file,
 * absolute, or inside the same file) is rewritten to point into `#/components/schemas`, so the document
 * stands alone.
 */

const CONTRACT_BASE = 'https://adapter-engine.dev/schemas/contract/';

function componentName(file: string): string {
  return file.replace(/\.schema\.json$/, '');
}

/** `enums.schema.json#/definitions/x` seen from `file` → `#/components/schemas/enums/definitions/x`. */
export function componentRef(ref: string, file: string): string {
  const relative = ref.startsWith(CONTRACT_BASE) ? ref.slice(CONTRACT_BASE.length) : ref;
  const [target, pointer = ''] = relative.split('#');
  return `#/components/schemas/${componentName(target === '' ? file : target)}${pointer}`;
}

function rewrite(node: unknown, file: string): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, file));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === '$id') continue;
    out[key] = key === '$ref' && typeof value === 'string' ? componentRef(value, file) : rewrite(value, file);
  }
  return out;
}

export function contractComponents(): Record<string, unknown> {
  return Object.fromEntries([...contractSchemaFiles()].map(([file, schema]) => [componentName(file), rewrite(schema, file)]));
}

/** A route's schema (refs into the contract files) with its refs pointing at the components. */
export function routeSchema(schema: Readonly<Record<string, unknown>>): unknown {
  return rewrite(schema, '');
}

/**
 * One property of a route's input schema (a query or path parameter), its refs rewritten relative to
 * the file it comes from; undefined when the input schema is not a contract file or does not name it.
 */
export function inputProperty(inputSchema: Readonly<Record<string, unknown>> | null, name: string): { readonly schema: unknown; readonly required: boolean; readonly description?: string } | undefined {
  const ref = typeof inputSchema?.$ref === 'string' ? inputSchema.$ref : '';
  if (!ref.startsWith(CONTRACT_BASE)) return undefined;
  const file = ref.slice(CONTRACT_BASE.length).split('#')[0];
  const schema = contractSchemaFile(file) as { properties?: Record<string, unknown>; required?: readonly string[] };
  const property = schema.properties?.[name] as Record<string, unknown> | undefined;
  if (!property) return undefined;
  const description = typeof property.description === 'string' ? property.description : undefined;
  return { schema: rewrite(property, file), required: schema.required?.includes(name) ?? false, ...(description ? { description } : {}) };
}
