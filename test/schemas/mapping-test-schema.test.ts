import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderMappingTestSchema } from '../../engine/scripts/write-mapping-schema';
import { TEST_SCHEMA_FILE } from '../../engine/testing/test-file';
import { blocksOf, docFiles, ROOT } from '../docs/markdown';

/**
 * schemas/mapping-test.schema.json, the test files' schema for editors: the committed file is the one the
 * runner checks with, and every test file of the repository (and every test file shown in docs/) holds to it.
 */
const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(JSON.parse(fs.readFileSync(TEST_SCHEMA_FILE, 'utf8')) as object);

function testFilesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((name) => /\.test\.ya?ml$/.test(name)).map((name) => path.join(dir, name));
}

describe('the test files\' JSON Schema', () => {
  it('is the committed schemas/mapping-test.schema.json (npm run schema:mapping writes it)', () => {
    expect(fs.readFileSync(TEST_SCHEMA_FILE, 'utf8')).toBe(renderMappingTestSchema());
  });

  it('every test file in examples/ and mappings/, and every test file in the docs, validates against it', () => {
    const files = [...testFilesUnder('examples'), ...testFilesUnder('mappings')];
    expect(files.length).toBeGreaterThanOrEqual(3);
    const shown = docFiles().flatMap(blocksOf).filter((block) => block.lang === 'yaml-test');
    expect(shown.length).toBeGreaterThanOrEqual(3);
    const documents = [
      ...files.map((file) => ({ where: file, value: parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as unknown })),
      ...shown.map((block) => ({ where: `${block.file}:${block.line}`, value: parse(block.text) as unknown })),
    ];
    for (const { where, value } of documents) expect(validate(value) ? [] : validate.errors, where).toEqual([]);
  });

  it('refuses what the runner refuses: a misspelt key, a case without expect', () => {
    expect(validate({ cases: [{ name: 'x', operation: 'GetItem', inputs: {}, expect: { result: 'Succeed' } }] })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'additionalProperties', params: { additionalProperty: 'inputs' } });
    expect(validate({ cases: [{ name: 'x', operation: 'GetItem' }] })).toBe(false);
  });
});
