import type { TSchema } from '@sinclair/typebox';

/**
 * The JSON Schema of a format declaration, for editors (schemas/mapping.schema.json) and for the
 * structure check (AJV). TypeBox gives most of it; this turns its idioms into what editors and AJV
 * expect: a setting with a default is not required, a choice of words is an `enum`, variants are
 * `oneOf` with a discriminator, and a map of names is `additionalProperties` (with `propertyNames` when
 * the names have a pattern).
 */

type Json = { [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function convert(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convert);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = convert(value);

  if (out.words === true && Array.isArray(out.anyOf)) {
    const words = (out.anyOf as Json[]).map((member) => member.const);
    delete out.anyOf;
    delete out.words;
    return { enum: words, ...out };
  }
  if (typeof out.variantKey === 'string' && Array.isArray(out.anyOf)) {
    const key = out.variantKey;
    const members = out.anyOf;
    delete out.anyOf;
    delete out.variantKey;
    return { type: 'object', discriminator: { propertyName: key }, oneOf: members, ...out };
  }
  if (isObject(out.properties) && Array.isArray(out.required)) {
    const properties = out.properties;
    const required = (out.required as string[]).filter((name) => !(isObject(properties[name]) && 'default' in properties[name]));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  if (isObject(out.patternProperties)) {
    const [[pattern, value]] = Object.entries(out.patternProperties);
    delete out.patternProperties;
    out.additionalProperties = value;
    if (pattern !== '^(.*)$') out.propertyNames = { pattern };
  }
  return out;
}

export function toJsonSchema(schema: TSchema): Json {
  // JSON.parse(JSON.stringify()) drops TypeBox's symbol-keyed markers.
  return convert(JSON.parse(JSON.stringify(schema))) as Json;
}
