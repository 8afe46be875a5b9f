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

  it('adds to a flow list inside its brackets, every other byte kept', () => {
    const empty = withCase('# mine\ncases: []   # none yet\n', NEW_CASE, 'acme.test.yaml', 'acme.yaml');
    expect(empty).toBe('# mine\ncases: [{ name: c, operation: GetItem, input: { number: A-2 }, expect: { result: Succeed, data: { number: A-2 } } }]   # none yet\n');
    expect((parse(empty) as { cases: TestCase[] }).cases).toEqual([NEW_CASE]);
    const written = 'cases: [\n  { name: a, operation: GetItem, input: { tags: [x] }, expect: { result: Succeed } },   # by hand\n]\n';
    const text = withCase(written, NEW_CASE, 'acme.test.yaml', 'acme.yaml');
    const end = written.lastIndexOf(' },') + 2;
    const [head, tail] = [written.slice(0, end), written.slice(end)];
    expect(text.startsWith(head) && text.endsWith(tail)).toBe(true);
    expect((parse(text) as { cases: TestCase[] }).cases.map((testCase) => testCase.name)).toEqual(['a', 'c']);
  });

  it('keeps flow sequences as written ([x] stays [x], not [ x ]) and every comment where it was', () => {
    const file = `# yaml-language-server: $schema=https://adapter-engine.dev/schemas/mapping-test.schema.json
cases:
  - name: a   # why this case
    operation: GetItem
    input: { number: A-1 }
    answers:
      article: { body: { tags: [x], sizes: [1,2] } }
    # what it checks
    expect: { result: Succeed, data: { tags: [x] } }
`;
    const text = withCase(file, NEW_CASE, 'acme.test.yaml', 'acme.yaml');
    expect(text.slice(0, file.length)).toBe(file);
    expect(text.slice(file.length)).toMatch(/^ {2}- name: c\n/);
  });

  it('refuses a file that is no test file', () => {
    expect(() => withCase('cases: {}\n', NEW_CASE, 'acme.test.yaml', 'acme.yaml')).toThrow('acme.test.yaml has no "cases:" list to add to');
    expect(() => withCase('cases: [\n', NEW_CASE, 'acme.test.yaml', 'acme.yaml')).toThrow('acme.test.yaml is not valid YAML');
  });
});
