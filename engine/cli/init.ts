import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { initialMapping, initialTests } from './init-mapping';
import { MAPPING_SCHEMA_FILE, mappingSchemaFile } from '../mapping/format/schema-file';
import { schemaReference } from '../paths';
import { out } from './output';
import { usageError } from './usage';
import { displayName } from '../mapping/yaml-file';
import { validate } from './validate';
import { testSchemaLine } from '../testing/test-file';

interface InitOptions {
  dir: string;
}

/** A mapping name is also its file name and the prefix it is served under: keep it plain. */
const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

async function init(name: string, options: InitOptions): Promise<number> {
  if (!NAME.test(name)) usageError(`"${name}" cannot name a mapping: use letters, digits, - and _ (it becomes the file name), e.g. acme`);
  const mappingFile = path.join(options.dir, `${name}.yaml`);
  const testFile = path.join(options.dir, `${name}.test.yaml`);
  for (const file of [mappingFile, testFile]) {
    if (fs.existsSync(file)) usageError(`${displayName(file)} exists already; init never overwrites a file (choose another name, or --dir)`);
  }
  fs.mkdirSync(options.dir, { recursive: true });
  // `wx`: should a file appear since the check above, it is still not overwritten.
  // Relative to the file written, with forward slashes (the yaml-language-server reads a URI-like path).
  const schemaPath = schemaReference(mappingFile, MAPPING_SCHEMA_FILE, String(mappingSchemaFile().$id));
  fs.writeFileSync(mappingFile, initialMapping(name, schemaPath), { flag: 'wx' });
  fs.writeFileSync(testFile, initialTests(name, testSchemaLine(testFile)), { flag: 'wx' });
  out.line(`wrote ${displayName(mappingFile)} and ${displayName(testFile)}`);
  out.line('');
  const code = await validate([mappingFile], {});
  out.line('');
  out.line(`next: set ERP_URL (or --env-file), change the calls to the ERP's endpoints, then run npx adapter-engine test ${displayName(testFile)}`);
  return code;
}

export function registerInit(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('init')
    .summary('start a mapping for a new customer')
    .description('Write <dir>/<name>.yaml, a mapping with every contract route as an operation commented with what the platform sends, what the route must answer and the result names it may use, and <name>.test.yaml with a first test case per route; then validate the mapping and print the result. Existing files are never overwritten.\n\nExit code 0 when the written mapping validates, 2 for usage errors (a file exists already, a bad name).')
    .argument('<name>', 'the customer\'s mapping name, e.g. acme (letters, digits, - and _)')
    .option('--dir <dir>', 'where to write the files', 'mappings')
    .action((name: string, options: InitOptions) => run(init(name, options)));
}
