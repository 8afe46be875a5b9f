import { Kind, type TArray, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { toJsonSchema } from './json-schema';
import { buildMappingFormat, type MappingDocument } from './mapping';

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

/**
 * TypeBox's Value.Default, each object's property visited once. TypeBox 0.34 visits every property of
 * an object twice (once to see whether it gives a value, once to assign it), so its work doubled at
 * each level: 3 ms of every mapping file's load, the example's. Plain objects and lists are walked
 * here as TypeBox walks them; everything else (unions, records, a schema with a default of its own) is
 * TypeBox's, from that node down. test/format/defaults.test.ts holds it to Value.Default's answers.
 */
function fillDefaults(schema: TSchema, value: unknown): unknown {
  if (value === undefined || 'default' in schema) return Value.Default(schema, value);
  if (schema[Kind] === 'Array' && Array.isArray(value)) {
    const items = (schema as TArray).items;
    for (let i = 0; i < value.length; i += 1) value[i] = fillDefaults(items, value[i]);
    return value;
  }
  const object = schema as TObject;
  if (schema[Kind] !== 'Object' || typeof object.additionalProperties === 'object' || typeof value !== 'object' || value === null || Array.isArray(value)) {
    return Value.Default(schema, value);
  }
  const record = value as Record<string, unknown>;
  for (const [key, property] of Object.entries(object.properties)) {
    const filled = fillDefaults(property, record[key]);
    if (filled !== undefined) record[key] = filled;
  }
  return record;
}

/** A document that passed the structure check, with every default the format declares filled in. */
export function withDefaults(document: unknown): MappingDocument {
  const filled = fillDefaults(mappingFormat(), structuredClone(document)) as MappingDocument;
  // TypeBox fills no defaults inside a record's values (push.<name>): done here, with the entry's own declaration.
  const [entry] = Object.values(mappingFormat().properties.push.patternProperties);
  for (const [name, push] of Object.entries(filled.push ?? {})) (filled.push as Record<string, unknown>)[name] = fillDefaults(entry, push);
  return filled;
}

export type { CallDocument, MappingDocument, OperationDocument, OperationMode } from './mapping';
export { OPERATION_MODES } from './mapping';
