/**
 * The SOAP section of docs/connecting-an-erp.md also shows an excerpt of examples/soap/nav.test.yaml (a
 * `text` block, since a part of a test file cannot run alone): it must be in that file as shown. Its
 * excerpts of nav.yaml are checked by test/docs/docs.test.ts, like every "# examples/<file>" block.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blocksOf, ROOT } from '../docs/markdown';

const GUIDE = 'docs/connecting-an-erp.md';

describe('the SOAP section of the ERP guide', () => {
  it('its test file excerpt is a part of examples/soap/nav.test.yaml', () => {
    const lines = fs.readFileSync(path.join(ROOT, GUIDE), 'utf8').split('\n');
    const start = lines.indexOf('## ERPs that speak SOAP and XML') + 1;
    const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
    expect(start).toBeGreaterThan(0);
    const excerpts = blocksOf(GUIDE).filter((block) => block.line > start && block.line < end && block.lang === 'text');
    expect(excerpts).toHaveLength(1);
    expect(fs.readFileSync(path.join(ROOT, 'examples', 'soap', 'nav.test.yaml'), 'utf8')).toContain(excerpts[0]!.text);
  });
});
