import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES, resultNumber } from '../../engine/contract/routes';
import { checkMappingText } from '../../engine/mapping/load';

const readme = fs.readFileSync('README.md', 'utf8');

describe('README', () => {
  it('shows the two quick-start commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
  });

  it('has the route table of engine/contract/routes.ts', () => {
    const table = /<!-- route-table[^>]*-->\n([\s\S]*?)<!-- \/route-table -->/.exec(readme)?.[1] ?? '';
    const rows = table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| operation'));
    const expected = ROUTES.map((r) => `| ${r.operationId} | ${r.method} ${r.path} | ${r.kind} | ${resultNumber(r, r.successResult)} ${r.successResult} |`);
    expect(rows).toEqual(expected);
  });

  it('its format example is a mapping that loads', () => {
    const example = /```yaml\n(version: 1[\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const { mapping, issues } = checkMappingText(example!, 'README.md', { ERP_URL: 'http://erp.test/api', ACME_KEY: 'k' });
    expect(issues.filter((i) => i.code !== 'UNMAPPED_ROUTE')).toEqual([]);
    expect(mapping?.operations.has('GetWorkOrderByCode')).toBe(true);
  });
});
