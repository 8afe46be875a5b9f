import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../contract/routes';
import { renderMappingSchema } from '../../scripts/write-mapping-schema';
import { MAPPING_SCHEMA_FILE } from './schema-file';
import { mappingJsonSchema } from '.';

describe('mapping format JSON Schema', () => {
  it('the committed schemas/mapping.schema.json is the one built from the route table (run npm run schema:mapping)', () => {
    expect(fs.readFileSync(MAPPING_SCHEMA_FILE, 'utf8')).toBe(renderMappingSchema());
  });

  it('offers exactly the 19 contract operations for completion', () => {
    const operations = (mappingJsonSchema().properties as Record<string, { properties: object }>).operations.properties;
    expect(Object.keys(operations).sort()).toEqual(ROUTES.map((r) => r.operationId).sort());
    expect(Object.keys(operations)).toHaveLength(19);
  });

  it('the example mapping points editors at the schema', () => {
    expect(fs.readFileSync('mappings/example.yaml', 'utf8')).toMatch(/^# yaml-language-server: \$schema=\.\.\/schemas\/mapping\.schema\.json$/m);
  });
});
