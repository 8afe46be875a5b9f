import type { Command } from 'commander';
import { isRefusal, writeNewMapping } from '../testing/new-mapping';
import { out } from './output';
import { usageError } from './usage';
import { displayName } from '../mapping/yaml-file';
import { validate } from './validate';

interface InitOptions {
  dir: string;
}

async function init(name: string, options: InitOptions): Promise<number> {
  const written = writeNewMapping(options.dir, name);
  if (isRefusal(written)) return usageError(written.reason === 'exists' ? `${written.problem} (choose another name, or --dir)` : written.problem);
  const { mappingFile, testFile } = written;
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
