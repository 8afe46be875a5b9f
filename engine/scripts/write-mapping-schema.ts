import fs from 'node:fs';
import path from 'node:path';
import { mappingJsonSchema } from '../mapping/format';
import { MAPPING_SCHEMA_FILE } from '../mapping/format/schema-file';

/** `npm run schema:mapping`: writes schemas/mapping.schema.json (MAPPING_SCHEMA_FILE), the file editors use for completion. */

export function renderMappingSchema(): string {
  return `${JSON.stringify(mappingJsonSchema(), null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(MAPPING_SCHEMA_FILE, renderMappingSchema());
  console.log(`wrote ${path.relative(process.cwd(), MAPPING_SCHEMA_FILE)}`);
}
