import fs from 'node:fs';
import path from 'node:path';
import { mappingJsonSchema } from '../mapping/format';
import { SCHEMAS_DIR } from '../paths';

/** `npm run schema:mapping`: writes schemas/mapping.schema.json, the file editors use for completion. */
export const MAPPING_SCHEMA_FILE = path.join(SCHEMAS_DIR, 'mapping.schema.json');

export function renderMappingSchema(): string {
  return `${JSON.stringify(mappingJsonSchema(), null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(MAPPING_SCHEMA_FILE, renderMappingSchema());
  console.log(`wrote ${path.relative(process.cwd(), MAPPING_SCHEMA_FILE)}`);
}
