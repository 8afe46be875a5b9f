import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Problem } from '../errors';
import type { JsonSchema } from './routes';
import { contractSchemaFiles } from './schema-files';

/**
 * All contract schemas live in one AJV instance per registry, one registry per engine (validators are
 * engine state, released with it). Validators are compiled once per schema object and cached.
 */
export interface SchemaRegistry {
  compile(schema: JsonSchema): Validator;
  /**
   * A validator that compiles on its first use. A server prepares all 19 routes but a process may
   * answer only a few of them; compiling all up front was a tenth of start-up (see the benchmarks).
   */
  lazy(schema: JsonSchema): Validator;
}

export type Validator = (value: unknown) => readonly Problem[];

/** AJV error → a path and a message a person can read (`/requests/0/dueDate: must match format "date-time"`). */
export function toProblems(errors: readonly ErrorObject[] | null | undefined, root = ''): Problem[] {
  if (!errors) return [];
  return errors.map((error) => {
    let where = root + error.instancePath;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      where = `${where}/${missing}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      where = `${where}/${extra}`;
      message = 'is not a property the contract defines';
    } else if (error.keyword === 'type' && (error.params as { type: unknown }).type === 'array') {
      // The classic JSONata surprise: a path over a one-element list yields the element itself.
      message = 'must be a list (JSONata gives a single value for a one-element result: wrap the expression in [ ])';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    return { path: where === '' ? '/' : where, message };
  });
}

export function createSchemaRegistry(): SchemaRegistry {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-enumNames', schemaType: 'array' });
  // AJV annotates the schema objects it is given; each registry gets its own copies of the shared files.
  for (const schema of contractSchemaFiles().values()) ajv.addSchema(structuredClone(schema) as Record<string, unknown>);
  const cache = new WeakMap<JsonSchema, Validator>();

  return {
    compile(schema) {
      const cached = cache.get(schema);
      if (cached) return cached;
      const validate: ValidateFunction = ajv.compile(schema as Record<string, unknown>);
      const validator: Validator = (value) => (validate(value) ? [] : toProblems(validate.errors));
      cache.set(schema, validator);
      return validator;
    },
    lazy(schema) {
      let validator: Validator | undefined;
      return (value) => {
        validator ??= this.compile(schema);
        return validator(value);
      };
    },
  };
}
