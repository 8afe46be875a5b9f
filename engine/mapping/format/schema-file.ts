import fs from 'node:fs';
import path from 'node:path';
import { SCHEMAS_DIR } from '../../paths';

/**
 * schemas/mapping.schema.json: the format's JSON Schema as `npm run schema:mapping` writes it from the
 * declaration (json-schema.test.ts holds the file to it). Editors use it for completion; at run time the
 * defaults walk (defaults.ts) and, from the sources, the structure check read it instead of building the
 * declaration, which would load TypeBox.
 */
export const MAPPING_SCHEMA_FILE = path.join(SCHEMAS_DIR, 'mapping.schema.json');

let format: Readonly<Record<string, unknown>> | undefined;

/** The file's schema, read on first use; a constant of the program like the contract's files. */
export function mappingSchemaFile(): Readonly<Record<string, unknown>> {
  format ??= JSON.parse(fs.readFileSync(MAPPING_SCHEMA_FILE, 'utf8')) as Readonly<Record<string, unknown>>;
  return format;
}
