import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { LRUCache } from 'lru-cache';
import type { Validator } from '../contract/schema-registry';
import type { Problem } from '../errors';

/**
 * The JSON Schema a mapping declares for a push's payload. Not the contract's validators: the schema is
 * the integrator's (often copied from the ERP's documentation, with annotations AJV's strict mode would
 * refuse), and the messages speak of the push, not of the contract. Every problem is listed, up to 100.
 */
const PROBLEM_LIMIT = 100;

function problemOf(error: ErrorObject): Problem {
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path: `${at}/${(error.params as { missingProperty: string }).missingProperty}`, message: 'is required' };
    case 'additionalProperties':
      return { path: `${at}/${(error.params as { additionalProperty: string }).additionalProperty}`, message: 'is not allowed here' };
    case 'enum':
      return { path: at || '/', message: `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { path: at || '/', message: error.message ?? 'is invalid' };
  }
}

/**
 * One AJV for every payload schema of the process, made on first use (as check-structure.ts makes its
 * own): a new one per schema compiled JSON Schema's meta-schema again each time, a fifth of the
 * start-up of 20 mapping files with three pushes each. It keeps nothing: each schema is removed once
 * compiled (its validator keeps what it needs), so reloads add nothing and two mappings' `$id`s never meet.
 */
let shared: Ajv | undefined;

/**
 * Validators by schema text, shared by every mapping that declares the same schema: an operator with
 * many customers on one ERP serves the same push schemas many times over, and compiling them was a tenth
 * of loading each such mapping (issue 28). A validator keeps no state between calls. Bounded, so reloads
 * of changed schemas do not pile up.
 */
const compiledSchemas = new LRUCache<string, Validator>({ max: 256 });

/** Throws (with AJV's reason) when `schema` is not a JSON Schema. */
export function compilePayloadSchema(schema: Record<string, unknown>): Validator {
  const key = JSON.stringify(schema);
  const known = compiledSchemas.get(key);
  if (known) return known;
  const validator = compileOwn(schema);
  compiledSchemas.set(key, validator);
  return validator;
}

function compileOwn(schema: Record<string, unknown>): Validator {
  if (!shared) {
    // code.optimize off: AJV's passes over its generated code (folding constants, dropping unused names)
    // were a third of compiling each schema, every start, for a check that runs once per push; the code
    // checks the same without them.
    shared = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, code: { optimize: false } });
    addFormats(shared);
  }
  const ajv = shared;
  const own = structuredClone(schema);
  let validate: ReturnType<Ajv['compile']>;
  try {
    validate = ajv.compile(own);
  } finally {
    ajv.removeSchema(own);
  }
  const check = (value: unknown, limit = PROBLEM_LIMIT): readonly Problem[] => {
    if (validate(value)) return [];
    const problems = (validate.errors ?? []).map(problemOf);
    if (problems.length <= limit) return problems;
    return [...problems.slice(0, limit), { path: '', message: `and ${problems.length - limit} more problems` }];
  };
  // A push is as large as the body limit lets it be, checked once when it arrives: no slices needed.
  return Object.assign(check, { inSlices: async (value: unknown, limit?: number) => check(value, limit) });
}
