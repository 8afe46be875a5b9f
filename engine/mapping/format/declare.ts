import { Type, type SchemaOptions, type Static, type TLiteral, type TObject, type TOptional, type TProperties, type TSchema, type TUnion } from '@sinclair/typebox';

/**
 * The words the mapping format is declared in. Each setting is declared once, with TypeBox: its type, its
 * default, its description, whether it is a secret, and which variant (auth type, pagination style) it
 * belongs to. From that one declaration come the JSON Schema editors and the structure check use
 * (json-schema.ts), the TypeScript types the compiler reads (`Static<...>`), the defaults the compiler
 * applies (defaults.ts) and the reference tables of the documentation (reference.ts).
 *
 * A setting with a default is declared as present (so the compiler's type says it is always there once
 * defaults are applied); the JSON Schema leaves it out of `required`, so a file may omit it.
 */

type Described = SchemaOptions & { readonly description: string };

export function expression(description: string, options: SchemaOptions = {}) {
  return Type.String({ minLength: 1, ...options, expression: true, description: `JSONata expression. ${description}` });
}

export function template(description: string) {
  return Type.String({ template: true, description: `Text with {expression} placeholders. ${description}` });
}

export function text(description: string, options: SchemaOptions = {}) {
  return Type.String({ minLength: 1, ...options, description });
}

/** A credential: must come from `${VAR}` (the compiler checks), never shown in logs or dry-run output. */
export function secret(description: string) {
  return Type.String({ minLength: 1, secret: true, description: `${description} A secret: write it as \${VAR} so it comes from an environment variable.` });
}

export function integer(minimum: number, maximum: number | undefined, description: string) {
  return Type.Integer({ minimum, ...(maximum === undefined ? {} : { maximum }), description });
}

export function boolean(description: string) {
  return Type.Boolean({ description });
}

/** One of a few words; the JSON Schema says `enum`, the type is the union of the words. */
export function oneOfWords<const T extends readonly string[]>(words: T, description: string): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(words.map((word) => Type.Literal(word)), { description, words: true }) as TUnion<TLiteral<T[number]>[]>;
}

/** A setting the file may leave out: the compiler then sees `value`. */
export function withDefault<T extends TSchema>(schema: T, value: Static<T>): T {
  return { ...schema, default: value } as T;
}

export function optional<T extends TSchema>(schema: T) {
  return Type.Optional(schema);
}

/** The settings of a block, each optional and without its default: a part of a block that another completes (a call template). */
export function partial<T extends TProperties>(properties: T): { [K in keyof T]: TOptional<T[K]> } {
  const entries = Object.entries(properties).map(([key, schema]) => {
    const { default: _default, ...rest } = schema as TSchema & { default?: unknown };
    return [key, Type.Optional({ ...rest } as TSchema)];
  });
  return Object.fromEntries(entries) as { [K in keyof T]: TOptional<T[K]> };
}

export function block<T extends TProperties>(properties: T, options: Described) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/**
 * Settings whose fields depend on one key (`type` of auth, `style` of pagination): one object per variant.
 * The JSON Schema says `oneOf` with a discriminator, so an editor completes the fields of the chosen
 * variant and the structure check names the variant when a field does not belong to it.
 */
export function variants<K extends string, T extends TObject[]>(key: K, members: [...T], description: string) {
  return Type.Union(members, { description, variantKey: key });
}

export function variant<K extends string, V extends string, T extends TProperties>(key: K, value: V, description: string, properties: T) {
  return Type.Object({ [key]: Type.Literal(value, { description }), ...properties } as { [P in K]: TLiteral<V> } & T, { additionalProperties: false, description });
}
