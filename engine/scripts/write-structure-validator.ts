import fs from 'node:fs';
import path from 'node:path';
import standaloneCode from 'ajv/dist/standalone';
import { mappingJsonSchema } from '../mapping/format';
import { AHEAD_OF_TIME_FILE, structureAjv } from '../mapping/structure-ajv';

/**
 * Run by `npm run build` (postbuild): compiles the mapping structure check into code beside
 * check-structure.js in dist/, so serve loads it instead of compiling it at every start.
 */
export function renderStructureValidator(): string {
  const ajv = structureAjv({ source: true });
  return standaloneCode(ajv, ajv.compile(mappingJsonSchema()));
}

if (require.main === module) {
  const target = path.join(__dirname, '..', 'mapping', AHEAD_OF_TIME_FILE);
  fs.writeFileSync(target, renderStructureValidator());
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}
