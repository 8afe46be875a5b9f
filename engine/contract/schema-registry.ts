import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { CONTRACT_SCHEMAS_DIR } from '../paths';
import type { Problem } from '../errors';
import type { JsonSchema } from './routes';

/**
 * All contract schemas live in one AJV instance, loaded once per process from schemas/contract.
 * Validators are compiled once per schema object and cached, so a request never compiles anything.
 */
export interface SchemaRegistry {
  compile(schema: JsonSchema): Validator;
  /**
   * A validator that compiles on its first use. A server prepares all 19 routes but a process may
   * answer only a few of them; compiling all up front was a tenth of start-up (see the benchmarks).
   */
  lazy(schema: JsonSchema): Validator;
  /** The raw JSON of one contract schema file, for readers such as the enum helpers. */
  file(name: string): Record<string, unknown>;
}

export type Validator = (value: unknown) => readonly Problem[];

function readContractSchemas(): Map<string, Record<string, unknown>> {
  const files = fs.readdirSync(CONTRACT_SCHEMAS_DIR).filter((name) => name.endsWith('.schema.json')).sort();
  return new Map(files.map((name) => [name, JSON.parse(fs.readFileSync(path.join(CONTRACT_SCHEMAS_DIR, name), 'utf8'))]));
}

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
  const files = readContractSchemas();
  for (const schema of files.values()) ajv.addSchema(schema);
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
    file(name) {
      const schema = files.get(name);
      if (!schema) throw new Error(`no contract schema named ${name} in ${CONTRACT_SCHEMAS_DIR}`);
      return schema;
    },
  };
}

let shared: SchemaRegistry | undefined;

/** The process-wide registry: schema files are read and compiled once, however many mappings load. */
export function contractSchemas(): SchemaRegistry {
  shared ??= createSchemaRegistry();
  return shared;
}
