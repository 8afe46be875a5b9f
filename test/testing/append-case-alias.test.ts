import { describe, expect, it } from 'vitest';
import { withCase } from '../../engine/testing/recorded-case';
import type { TestCase } from '../../engine/testing/test-file';

/** A test file that reuses an answer with an anchor and an alias (as mappings/example.test.yaml does) keeps every byte when a case is added. */
const NEW_CASE: TestCase = { name: 'c', operation: 'GetItem', input: { number: 'A-2' }, expect: { result: 'Succeed' } };

const WRITTEN = `cases:
  - name: a
    operation: GetItem
    answers:
      article: { headers: &json {content-type: application/json}, body: {no: A-1} }
    expect: { result: Succeed }
  - name: b
    operation: GetItem
    answers:
      article:
        headers: *json
        body: { no: A-1 }
    expect: { result: Succeed }
`;

describe('adding a case to a test file with anchors and aliases', () => {
  it('splices the case in and leaves the rest, aliases included, as written', () => {
    const text = withCase(WRITTEN, NEW_CASE, 'acme.test.yaml', 'acme.yaml');
    expect(text.startsWith(WRITTEN)).toBe(true);
    expect(text.slice(WRITTEN.length)).toBe('  - name: c\n    operation: GetItem\n    input:\n      number: A-2\n    expect:\n      result: Succeed\n');
  });
});
