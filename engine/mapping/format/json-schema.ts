import type { TSchema } from '@sinclair/typebox';

/**
 * The JSON Schema of a format declaration, for editors (schemas/mapping.schema.json) and for the
 * structure check (AJV). TypeBox gives most of it; this turns its idioms into what editors and AJV
 * expect: a setting with a default is not required, a choice of words is an `enum`, variants are
 * `oneOf` with a discriminator, a map of names is `additionalProperties` (with `propertyNames` when
 * the names have a pattern), and settings required unless a key is present (`requiredUnless`) are an
 * `if`/`else`.
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
  if (isObject(out.requiredUnless)) {
    // Settings another block may give instead (a call's method and path, which its template can hold):
    // required only when the key that names that block is absent.
    const { key, settings } = out.requiredUnless as { key: string; settings: string[] };
    delete out.requiredUnless;
    const rest = ((out.required as string[] | undefined) ?? []).filter((name) => !settings.includes(name));
    if (rest.length > 0) out.required = rest;
    else delete out.required;
    // Each branch names its settings under properties as well (AJV's strictRequired asks it); their shape is the block's.
    out.if = { properties: { [key]: true }, required: [key] };
    out.else = { properties: Object.fromEntries(settings.map((name) => [name, true])), required: settings };
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
