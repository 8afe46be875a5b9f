import { contractSchemaFile } from './schema-files';
import type { JsonSchema } from './routes';

/**
 * The contract's schemas read as field lists, for checks made when a mapping loads: which fields a
 * route's input has (`input.Code`), which fields its data requires (`number` of an item). A schema is
 * read only where it says plainly what it holds: one object (or one object or null), one list. Where it
 * admits several shapes the answer is "unknown", and the checks that ask say nothing.
 */

/** A schema and the contract file it sits in, which its relative `$ref`s are read from. */
export interface SchemaAt {
  readonly schema: JsonSchema;
  readonly file: string;
}

export interface ObjectFields {
  readonly properties: ReadonlyMap<string, SchemaAt>;
  readonly required: readonly string[];
}

const BASE = 'https://adapter-engine.dev/schemas/contract/';
/** Deeper than any chain of references in the contract: the walk never follows a loop for ever. */
const MAX_REFS = 8;

/** A schema of the route table (routes.ts), whose references name contract files by their full address. */
export function routeSchema(schema: JsonSchema): SchemaAt {
  return { schema, file: '' };
}

function pointer(schema: JsonSchema, path: string): JsonSchema | undefined {
  let node: unknown = schema;
  for (const segment of path.split('/').filter(Boolean)) node = (node as Record<string, unknown> | undefined)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  return typeof node === 'object' && node !== null ? (node as JsonSchema) : undefined;
}

/** The schema a `$ref` chain ends at; undefined when a reference leaves the contract's files. */
function resolved(at: SchemaAt): SchemaAt | undefined {
  let current = at;
  for (let hops = 0; typeof current.schema.$ref === 'string'; hops += 1) {
    if (hops === MAX_REFS) return undefined;
    const [target, fragment = ''] = current.schema.$ref.split('#');
    const file = target === '' ? current.file : target.replace(BASE, '');
    if (file === '' || file.includes('/')) return undefined;
    const schema = pointer(contractSchemaFile(file), fragment);
    if (!schema) return undefined;
    current = { schema, file };
  }
  return current;
}

/** The alternatives that are not null: `anyOf: [X, null]` is X, or nothing was sent. */
function nonNull(at: SchemaAt): SchemaAt[] {
  const own = resolved(at);
  if (!own) return [];
  const choices = (own.schema.anyOf ?? own.schema.oneOf) as JsonSchema[] | undefined;
  if (!Array.isArray(choices)) return own.schema.type === 'null' ? [] : [own];
  return choices.flatMap((choice) => nonNull({ schema: choice, file: own.file }));
}

/** The one shape the schema admits besides null; undefined when it admits several (or none). */
function single(at: SchemaAt): SchemaAt | undefined {
  const choices = nonNull(at);
  return choices.length === 1 ? choices[0] : undefined;
}

/** The fields of the one object the schema describes; undefined when it describes something else, or several things. */
export function objectFields(at: SchemaAt): ObjectFields | undefined {
  const object = single(at);
  const properties = object?.schema.properties as Record<string, JsonSchema> | undefined;
  if (!object || typeof properties !== 'object' || properties === null) return undefined;
  return {
    properties: new Map(Object.entries(properties).map(([name, schema]) => [name, { schema, file: object.file }])),
    required: Array.isArray(object.schema.required) ? (object.schema.required as string[]) : [],
  };
}

/** What the one list the schema describes holds; undefined when it describes no list. */
export function itemsOf(at: SchemaAt): SchemaAt | undefined {
  const list = single(at);
  const items = list?.schema.type === 'array' ? (list.schema.items as JsonSchema | undefined) : undefined;
  return list && items && !Array.isArray(items) ? { schema: items, file: list.file } : undefined;
}
