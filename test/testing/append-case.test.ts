import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withCase } from '../../engine/testing/recorded-case';
import type { TestCase } from '../../engine/testing/test-file';

/** `requests export --out` and `record` into an existing test file: the file stays as its author wrote it, the case is added. */
const NEW_CASE: TestCase = { name: 'c', operation: 'GetItem', input: { number: 'A-2' }, expect: { result: 'Succeed', data: { number: 'A-2' } } };

const WRITTEN = `# Tests of acme: keep this comment
env: { ERP_URL: http://erp.test }   # a flow map, spaced by hand

cases:
  # the first case, by hand
  - name: a   # trailing comment
    operation: GetItem
    input: { number: A-1 }
    expect:
      result: Succeed     # aligned comment
      data: { number: "A-1",   unit: pcs }
    # notes under the first case

  - name: b
    operation: GetItem
    expect: { result: Succeed }
    # notes under the last case
# the end
`;

describe('adding a case to an existing test file', () => {
  it('keeps every byte of the file, comments and spacing included, and adds the case at the end of cases:', () => {
    const text = withCase(WRITTEN, NEW_CASE, 'acme.test.yaml', 'acme.yaml');
    const kept = WRITTEN.replace('# the end\n', '');
    expect(text.startsWith(kept)).toBe(true);
    expect(text.slice(kept.length)).toBe(`
  - name: c
    operation: GetItem
    input:
      number: A-2
    expect:
      result: Succeed
      data:
        number: A-2
# the end
`);
    expect((parse(text) as { cases: TestCase[] }).cases.map((testCase) => testCase.name)).toEqual(['a', 'b', 'c']);
  });

  it('follows a list written at the margin, and a file without a final newline', () => {
    const text = withCase('cases:\n- name: a\n  operation: GetItem\n  expect: { result: Succeed }', NEW_CASE, 'acme.test.yaml', 'acme.yaml');
    expect(text).toBe('cases:\n- name: a\n  operation: GetItem\n  expect: { result: Succeed }\n- name: c\n  operation: GetItem\n  input:\n    number: A-2\n  expect:\n    result: Succeed\n    data:\n      number: A-2\n');
  });

  it('prints the document again when the list is a flow list, keeping its comments', () => {
    const text = withCase('# mine\ncases: []   # none yet\n', NEW_CASE, 'acme.test.yaml', 'acme.yaml');
    expect(text).toContain('# mine');
    expect((parse(text) as { cases: TestCase[] }).cases).toEqual([NEW_CASE]);
  });

  it('refuses a file that is no test file', () => {
    expect(() => withCase('cases: {}\n', NEW_CASE, 'acme.test.yaml', 'acme.yaml')).toThrow('acme.test.yaml has no "cases:" list to add to');
    expect(() => withCase('cases: [\n', NEW_CASE, 'acme.test.yaml', 'acme.yaml')).toThrow('acme.test.yaml is not valid YAML');
  });
});
