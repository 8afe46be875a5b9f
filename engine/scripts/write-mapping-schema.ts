import fs from 'node:fs';
import path from 'node:path';
import { mappingJsonSchema } from '../mapping/format';
import { MAPPING_SCHEMA_FILE } from '../mapping/format/schema-file';
import { TEST_SCHEMA_FILE, testFileJsonSchema } from '../testing/test-file';

/**
 * `npm run schema:mapping`: writes schemas/mapping.schema.json (MAPPING_SCHEMA_FILE) and
 * schemas/mapping-test.schema.json (TEST_SCHEMA_FILE), the files editors use for completion.
 */

export function renderMappingSchema(): string {
  return `${JSON.stringify(mappingJsonSchema(), null, 2)}\n`;
}

export function renderMappingTestSchema(): string {
  return `${JSON.stringify(testFileJsonSchema(), null, 2)}\n`;
}

if (require.main === module) {
  for (const [file, text] of [[MAPPING_SCHEMA_FILE, renderMappingSchema()], [TEST_SCHEMA_FILE, renderMappingTestSchema()]]) {
    fs.writeFileSync(file, text);
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  }
}
