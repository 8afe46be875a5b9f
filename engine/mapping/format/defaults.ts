import type { MappingDocument } from './mapping';
import { mappingSchemaFile } from './schema-file';

/**
 * The defaults the format declares, filled into a mapping document. Read from the format's JSON Schema
 * (schemas/mapping.schema.json, built from the declaration and held to it by json-schema.test.ts), not
 * from the TypeBox declaration: TypeBox is 250 modules, 40 ms of every start of serve, for nothing else
 * at run time. The walk gives TypeBox's Value.Default answers (test/format/defaults.test.ts compares
 * them over the whole format), including its quirks: an object is anything `typeof` calls one (a list
 * too), and a record's values are only visited when their declaration has a default of its own.
 *
 * One difference, by design: TypeBox picks a union's member by checking the whole value against each
 * member; here a variant (`oneOf` with a discriminator) is picked by its key. They agree on every
 * document that passed the structure check, the only documents given here (compileMapping).
 */

type Schema = Readonly<Record<string, unknown>>;
type Json = Record<string, unknown>;

/** TypeBox's IsObject: lists are objects too. */
function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** TypeBox's ValueOrDefault: the value, or a copy of the default; an object value on top of an object default. */
function valueOrDefault(schema: Schema, value: unknown): unknown {
  const fallback = 'default' in schema ? structuredClone(schema.default) : undefined;
  if (value === undefined) return fallback;
  return isObject(value) && isObject(fallback) ? Object.assign(fallback, value) : value;
}

/** Whether a union is of plain values, per union of the format (a constant): asked once per document otherwise. */
const plainChoices = new WeakMap<Schema, boolean>();

class DefaultsWalk {
  constructor(private readonly root: Schema) {}

  visit(schema: Schema, value: unknown): unknown {
    if (typeof schema.$ref === 'string') return this.visit(this.resolve(schema.$ref), value);
    if (isSchema(schema.discriminator)) return this.variant(schema, value);
    if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf) || Array.isArray(schema.allOf)) return this.choice(schema, value);
    if (isSchema(schema.items)) return this.list(schema, value);
    if (isSchema(schema.properties)) return this.object(schema, value);
    if (isSchema(schema.additionalProperties)) return this.record(schema, value);
    return valueOrDefault(schema, value);
  }

  private resolve(ref: string): Schema {
    const target = /^#\/definitions\/([^/]+)$/.exec(ref);
    const definitions = this.root.definitions;
    const resolved = target && isSchema(definitions) ? (definitions as Json)[target[1]] : undefined;
    if (!isSchema(resolved)) throw new Error(`the mapping format's JSON Schema refers to ${ref}, which it does not define`);
    return resolved;
  }

  private list(schema: Schema, value: unknown): unknown {
    const items = schema.items as Schema;
    const list = Array.isArray(value) ? value : valueOrDefault(schema, value);
    if (!Array.isArray(list)) return list;
    for (let i = 0; i < list.length; i += 1) list[i] = this.visit(items, list[i]);
    return list;
  }

  private object(schema: Schema, value: unknown): unknown {
    const filled = valueOrDefault(schema, value);
    if (!isObject(filled)) return filled;
    const properties = schema.properties as Readonly<Record<string, Schema>>;
    for (const [key, property] of Object.entries(properties)) {
      const result = this.visit(property, filled[key]);
      if (result !== undefined) filled[key] = result;
    }
    const extra = schema.additionalProperties;
    if (isSchema(extra) && 'default' in extra) {
      for (const key of Object.getOwnPropertyNames(filled)) if (!Object.hasOwn(properties, key)) filled[key] = this.visit(extra, filled[key]);
    }
    return filled;
  }

  /** A map of names (TypeBox's Record): its values are visited only when their declaration has a default. */
  private record(schema: Schema, value: unknown): unknown {
    const filled = valueOrDefault(schema, value);
    const entry = schema.additionalProperties as Schema;
    if (!isObject(filled) || !('default' in entry)) return filled;
    const names = isSchema(schema.propertyNames) && typeof schema.propertyNames.pattern === 'string' ? new RegExp(schema.propertyNames.pattern) : undefined;
    for (const key of Object.getOwnPropertyNames(filled)) if (!names || names.test(key)) filled[key] = this.visit(entry, filled[key]);
    return filled;
  }

  /** Variants (`type` of auth, `style` of pagination): the member whose key the value names. */
  private variant(schema: Schema, value: unknown): unknown {
    const filled = valueOrDefault(schema, value);
    const key = (schema.discriminator as Schema).propertyName;
    if (!isObject(filled) || typeof key !== 'string' || !Array.isArray(schema.oneOf)) return filled;
    const member = (schema.oneOf as Schema[]).find((candidate) => isSchema(candidate.properties) && (candidate.properties as Json)[key] !== undefined && ((candidate.properties as Readonly<Record<string, Schema>>)[key].const === filled[key]));
    return member ? this.visit(member, filled) : filled;
  }

  /**
   * Any other union: of plain values (text or false, text or number), where TypeBox's answer is the
   * value or the union's default. A union of objects would need TypeBox's check to pick its member;
   * the format declares none, and one declared later stops here instead of getting wrong defaults.
   */
  private choice(schema: Schema, value: unknown): unknown {
    let plain = plainChoices.get(schema);
    if (plain === undefined) {
      const members = [schema.anyOf, schema.oneOf].flatMap((list) => (Array.isArray(list) ? (list as unknown[]) : []));
      plain = schema.allOf === undefined && members.every((member) => isSchema(member) && !('default' in member) && ['items', 'properties', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', '$ref'].every((key) => !(key in member)));
      plainChoices.set(schema, plain);
    }
    if (!plain) throw new Error('the mapping format declares a union of blocks; fill its defaults by its key (a discriminator) or teach defaults.ts how');
    return valueOrDefault(schema, value);
  }
}

/** A document that passed the structure check, with every default the format declares filled in (into a copy). */
export function withDefaults(document: unknown): MappingDocument {
  const format = mappingSchemaFile();
  const walk = new DefaultsWalk(format);
  const filled = walk.visit(format, structuredClone(document)) as MappingDocument;
  // A record's values get no defaults from the walk (TypeBox's rule): each push gets its entry's here.
  const entry = ((format.properties as Readonly<Record<string, Schema>>).push).additionalProperties as Schema;
  for (const [name, push] of Object.entries(filled.push ?? {})) (filled.push as Json)[name] = walk.visit(entry, push);
  return filled;
}
