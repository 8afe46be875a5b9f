import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaReference } from './paths';

const PUBLISHED = 'https://adapter-engine.dev/schemas/mapping-test.schema.json';

describe('how a written file names an engine schema', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-reference-'));
  const project = path.join(root, 'project');
  const schema = path.join(project, 'node_modules', 'erp-adapter-engine', 'schemas', 'mapping-test.schema.json');
  fs.mkdirSync(path.dirname(schema), { recursive: true });
  fs.writeFileSync(path.join(project, 'package.json'), '{}');
  fs.writeFileSync(schema, '{}');

  it('by a path relative to the file when the schema is inside the file\'s project', () => {
    expect(schemaReference(path.join(project, 'mappings', 'acme.test.yaml'), schema, PUBLISHED)).toBe('../node_modules/erp-adapter-engine/schemas/mapping-test.schema.json');
  });

  it('by its published address from a folder outside that project', () => {
    expect(schemaReference(path.join(root, 'elsewhere', 'acme.test.yaml'), schema, PUBLISHED)).toBe(PUBLISHED);
  });
});
