import { toJsonSchema } from './json-schema';
import { buildMappingFormat } from './mapping';

/**
 * The mapping format and what is derived from it. The declaration is built on first use (it reads the
 * contract's schema files) and then kept: it is a constant of the program, like the contract itself, the
 * same for every engine and never changed.
 */
let format: ReturnType<typeof buildMappingFormat> | undefined;
let jsonSchema: Record<string, unknown> | undefined;

export function mappingFormat(): ReturnType<typeof buildMappingFormat> {
  format ??= buildMappingFormat();
  return format;
}

/** The JSON Schema of the format: schemas/mapping.schema.json and the structure check. */
export function mappingJsonSchema(): Record<string, unknown> {
  jsonSchema ??= withSharedOperation({
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://adapter-engine.dev/schemas/mapping.schema.json',
    title: 'Adapter engine mapping file, format v1',
    ...toJsonSchema(mappingFormat()),
  });
  return jsonSchema;
}

/** The 19 operations share one definition, named once in `definitions` (the file stays readable). */
function withSharedOperation(schema: Record<string, unknown>): Record<string, unknown> {
  const operations = (schema.properties as Record<string, { properties: Record<string, Record<string, unknown>> }>).operations.properties;
  const [first] = Object.values(operations);
  const { description: _description, ...operation } = first;
  for (const [name, entry] of Object.entries(operations)) operations[name] = { $ref: '#/definitions/operation', description: entry.description };
  return { ...schema, definitions: { operation } };
}

export type { CallDocument, MappingDocument, OperationDocument, OperationMode } from './mapping';
;
