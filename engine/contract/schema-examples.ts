import type { JsonSchema } from './routes';
import { contractSchemaFile } from './schema-files';

/**
 * The smallest value a contract schema accepts: required properties only, the first enum value, the
 * first non-null branch. `init` writes it as the input of a mapping's first test cases, so the case
 * passes the contract's input check whatever the route.
 */
export function minimalExample(schema: JsonSchema): unknown {
  return exampleIn(schema, '');
}

const CONTRACT_BASE = 'https://adapter-engine.dev/schemas/contract/';

function resolve(ref: string, file: string): { schema: JsonSchema; file: string } {
  const [target, pointer = ''] = ref.replace(CONTRACT_BASE, '').split('#');
  const name = target === '' ? file : target;
  let node: unknown = contractSchemaFile(name);
  for (const key of pointer.split('/').filter((part) => part !== '')) node = (node as Record<string, unknown>)[key];
  if (!node || typeof node !== 'object') throw new Error(`the contract schema reference ${ref} (in ${file || 'a route'}) points nowhere`);
  return { schema: node as JsonSchema, file: name };
}

function exampleIn(schema: JsonSchema, file: string): unknown {
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref, file);
    return exampleIn(target.schema, target.file);
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) return exampleIn(branches.find((branch) => branch.type !== 'null') ?? branches[0], file);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((name) => name !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, exampleIn(properties[name] ?? {}, file)]));
    }
    case 'array':
      return Number(schema.minItems ?? 0) > 0 ? [exampleIn((schema.items ?? {}) as JsonSchema, file)] : [];
    case 'string':
      return schema.format === 'date-time' || schema.format === 'iso-date-time' ? '2026-12-01T00:00:00Z' : 'example';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    default:
      return null;
  }
}
