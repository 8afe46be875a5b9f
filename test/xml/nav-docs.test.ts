/**
 * The SOAP section of docs/connecting-an-erp.md shows excerpts of examples/soap/nav.yaml and its tests:
 * each excerpt must be the example's own settings, so the guide cannot drift from the mapping the tests
 * serve against the NAV stand-in. (test/docs/docs.test.ts checks that each excerpt loads.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { blocksOf, ROOT } from '../docs/markdown';

type Tree = Record<string, Record<string, unknown>>;

const GUIDE = 'docs/connecting-an-erp.md';
const example = parse(fs.readFileSync(path.join(ROOT, 'examples', 'soap', 'nav.yaml'), 'utf8')) as Tree;

/** The blocks between the SOAP section's heading and the next section of the same level. */
function soapBlocks() {
  const text = fs.readFileSync(path.join(ROOT, GUIDE), 'utf8').split('\n');
  const start = text.indexOf('## ERPs that speak SOAP and XML') + 1;
  const end = text.findIndex((line, index) => index > start && line.startsWith('## '));
  expect(start).toBeGreaterThan(0);
  return blocksOf(GUIDE).filter((block) => block.line > start && block.line < end);
}

describe('the SOAP section of the ERP guide', () => {
  it('every YAML excerpt is a part of examples/soap/nav.yaml, setting for setting', () => {
    const yamlBlocks = soapBlocks().filter((block) => block.lang === 'yaml');
    expect(yamlBlocks.length).toBeGreaterThanOrEqual(4);
    for (const block of yamlBlocks) {
      const excerpt = parse(block.text) as Tree;
      const where = `${GUIDE}:${block.line}`;
      for (const [prefix, uri] of Object.entries((excerpt.system?.xml as { namespaces: Record<string, string> } | undefined)?.namespaces ?? {})) {
        expect((example.system!.xml as { namespaces: Record<string, string> }).namespaces[prefix], `${where} system.xml.namespaces.${prefix}`).toBe(uri);
      }
      for (const [operation, settings] of Object.entries(excerpt.operations ?? {})) expect(settings, `${where} operations.${operation}`).toEqual(example.operations![operation]);
    }
  });

  it('the test file excerpt is a part of examples/soap/nav.test.yaml', () => {
    const tests = fs.readFileSync(path.join(ROOT, 'examples', 'soap', 'nav.test.yaml'), 'utf8');
    const excerpts = soapBlocks().filter((block) => block.lang === 'text');
    expect(excerpts).toHaveLength(1);
    expect(tests).toContain(excerpts[0]!.text);
  });
});
