import fs from 'node:fs';
import path from 'node:path';
import { CONTRACT_SCHEMAS_DIR } from '../paths';

/**
 * The contract's JSON Schema files, read on first use. They are part of the product, identical for
 * every engine and never change while it runs, so one read per process is kept here; compiled
 * validators, which are state, belong to each engine's SchemaRegistry instead.
 */
let files: ReadonlyMap<string, Readonly<Record<string, unknown>>> | undefined;

export function contractSchemaFiles(): ReadonlyMap<string, Readonly<Record<string, unknown>>> {
  if (!files) {
    const names = fs.readdirSync(CONTRACT_SCHEMAS_DIR).filter((name) => name.endsWith('.schema.json')).sort();
    files = new Map(names.map((name) => [name, Object.freeze(JSON.parse(fs.readFileSync(path.join(CONTRACT_SCHEMAS_DIR, name), 'utf8')) as Record<string, unknown>)]));
  }
  return files;
}

/** The raw JSON of one contract schema file, for readers such as the enum helpers. */
export function contractSchemaFile(name: string): Readonly<Record<string, unknown>> {
  const schema = contractSchemaFiles().get(name);
  if (!schema) throw new Error(`no contract schema named ${name} in ${CONTRACT_SCHEMAS_DIR}`);
  return schema;
}
