import fs from 'node:fs';
import path from 'node:path';
import { MAPPING_SCHEMA_FILE, mappingSchemaFile } from '../mapping/format/schema-file';
import { displayName } from '../mapping/yaml-file';
import { schemaReference } from '../paths';
import { initialMapping, initialTests } from './init-mapping';
import { testSchemaLine } from './test-file';

/**
 * A new mapping and its test file, as `adapter-engine init` and the studio's "New mapping" write them
 * (init-mapping.ts holds their text): `<dir>/<name>.yaml` and `<dir>/<name>.test.yaml`. An existing file
 * is never overwritten.
 */
export interface NewMapping {
  readonly mappingFile: string;
  readonly testFile: string;
}

/** Why no file was written: a name that cannot name a mapping, or a file that exists already. */
export interface NewMappingRefusal {
  readonly problem: string;
  readonly reason: 'name' | 'exists';
}

/** A mapping name is also its file name and the prefix it is served under: keep it plain. */
const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

const exists = (file: string): NewMappingRefusal => ({ problem: `${displayName(file)} exists already; a new mapping never overwrites a file`, reason: 'exists' });

/** Why `name` cannot start a new mapping in `dir` now (a bad name, a file that exists), or nothing. */
export function newMappingRefusal(dir: string, name: string): NewMappingRefusal | undefined {
  if (!NAME.test(name)) return { problem: `"${name}" cannot name a mapping: use letters, digits, - and _ (it becomes the file name), e.g. acme`, reason: 'name' };
  const existing = [`${name}.yaml`, `${name}.test.yaml`].map((file) => path.join(dir, file)).find((file) => fs.existsSync(file));
  return existing === undefined ? undefined : exists(existing);
}

export function writeNewMapping(dir: string, name: string): NewMapping | NewMappingRefusal {
  const refused = newMappingRefusal(dir, name);
  if (refused) return refused;
  const mappingFile = path.join(dir, `${name}.yaml`);
  const testFile = path.join(dir, `${name}.test.yaml`);
  fs.mkdirSync(dir, { recursive: true });
  // Relative to the file written, with forward slashes (the yaml-language-server reads a URI-like path).
  const schemaPath = schemaReference(mappingFile, MAPPING_SCHEMA_FILE, String(mappingSchemaFile().$id));
  // `wx`: should a file appear since the check above, it is still not overwritten.
  try {
    fs.writeFileSync(mappingFile, initialMapping(name, schemaPath), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return exists(mappingFile);
    throw error;
  }
  try {
    fs.writeFileSync(testFile, initialTests(name, testSchemaLine(testFile)), { flag: 'wx' });
  } catch (error) {
    // The mapping written a moment ago goes again: both files, or neither.
    fs.rmSync(mappingFile);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return exists(testFile);
    throw error;
  }
  return { mappingFile, testFile };
}

export const isRefusal = (written: NewMapping | NewMappingRefusal): written is NewMappingRefusal => 'problem' in written;
