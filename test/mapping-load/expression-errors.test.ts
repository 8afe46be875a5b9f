/**
 * Errors inside the text a mapping author writes: JSONata expressions, path templates, call paths and
 * mapping functions, each reported at the line and column inside that text.
 */
import { describe, expect, it } from 'vitest';
import { expectOnlyError, HEADER, yaml } from '../support/mapping-issues';

const withCall = (path: string) => yaml(
  `${HEADER}operations:`,
  '  GetItem:',
  '    calls:',
  '      - name: article',
  '        method: GET',
  `        path: ${path}`,
  '    output: calls.article.body',
);

describe('JSONata syntax (EXPRESSION_SYNTAX)', () => {
  it('inside a block scalar: the line and column inside the expression', () => {
    const text = yaml(
      `${HEADER}operations:`,
      '  GetItem:',
      '    output: |',
      '      {',
      '        "number": input.number,',
      '        "name": $uppercase(,',
      '      }',
    );
    expectOnlyError(text, { code: 'EXPRESSION_SYNTAX', line: 10, col: 28, mentions: ['S0211'] });
  });

  it('in a plain one-line value: the column of the offending token', () => {
    expectOnlyError(`${HEADER}operations:\n  GetItem:\n    output: input.number ]\n`, { code: 'EXPRESSION_SYNTAX', line: 7, col: 26, mentions: ['JSONata'] });
  });

  it('inside an outcome condition', () => {
    const text = yaml(
      `${HEADER}operations:`,
      '  GetItem:',
      '    calls:',
      '      - name: article',
      '        method: GET',
      '        path: /articles/{input.number}',
      '    outcomes:',
      "      - when: response.status = = 404",
      '        result: ItemDoesNotExist',
      '    output: calls.article.body',
    );
    expectOnlyError(text, { code: 'EXPRESSION_SYNTAX', line: 12, col: 33, mentions: ['"="'] });
  });

  it('inside a path placeholder: the column inside the template', () => {
    expectOnlyError(withCall('/articles/{input.number = = 1}'), { code: 'EXPRESSION_SYNTAX', line: 10, col: 41 });
  });

  it('an expression cut short points at its last character, not into the middle', () => {
    // "input.number +" ends after the "+" (column 39); JSONata reports the end as the token "(end)".
    expectOnlyError(withCall('/articles/{input.number +}'), { code: 'EXPRESSION_SYNTAX', line: 10, col: 39, mentions: ['S0207'] });
  });
});

describe('path templates and call paths', () => {
  it('an unclosed { is TEMPLATE_SYNTAX at the brace', () => {
    expectOnlyError(withCall('/articles/{input.number'), { code: 'TEMPLATE_SYNTAX', line: 10, col: 25, mentions: ['never closed'] });
  });

  it('an empty {} is TEMPLATE_SYNTAX', () => {
    expectOnlyError(withCall('/articles/{}'), { code: 'TEMPLATE_SYNTAX', line: 10, col: 25, mentions: ['empty'] });
  });

  it('/../admin is UNSAFE_PATH naming the path', () => {
    expectOnlyError(withCall('/../admin'), { code: 'UNSAFE_PATH', line: 10, col: 15, mentions: ['/../admin', '..'] });
  });

  it('an absolute URL (http://evil/) is UNSAFE_PATH', () => {
    expectOnlyError(withCall('http://evil/'), { code: 'UNSAFE_PATH', line: 10, col: 15, mentions: ['http://evil/'] });
  });

  it('a protocol-relative path (//evil/x) is UNSAFE_PATH', () => {
    expectOnlyError(withCall('//evil/x'), { code: 'UNSAFE_PATH', line: 10, col: 15, mentions: ['absolute URL'] });
  });

  it('a query string in the path is UNSAFE_PATH pointing to query:', () => {
    expectOnlyError(withCall('/articles?no={input.number}'), { code: 'UNSAFE_PATH', line: 10, col: 15, mentions: ['query:'] });
  });
});

describe('mapping functions', () => {
  it('a function named like a built-in (string) is RESERVED_NAME at its name', () => {
    const text = yaml(`${HEADER}functions:`, '  string: function($x) { $x }', 'operations: {}');
    expectOnlyError(text, { code: 'RESERVED_NAME', line: 6, col: 3, mentions: ['"string"', '$string'] });
  });

  it('an engine helper name (enumValue) is reserved too', () => {
    const text = yaml(`${HEADER}functions:`, '  enumValue: function($x) { $x }', 'operations: {}');
    expectOnlyError(text, { code: 'RESERVED_NAME', line: 6, col: 3, mentions: ['enumValue'] });
  });

  it('a function that is not a JSONata function is EXPRESSION_SYNTAX', () => {
    const text = yaml(`${HEADER}functions:`, '  unit: $uppercase(code)', 'operations: {}');
    expectOnlyError(text, { code: 'EXPRESSION_SYNTAX', line: 6, col: 9, mentions: ['functions.unit', 'function($'] });
  });

  it('a syntax error inside a function body points into it', () => {
    const text = yaml(`${HEADER}functions:`, '  unit: |', '    function($code) {', '      $code = = 1', '    }', 'operations: {}');
    const issue = expectOnlyError(text, { code: 'EXPRESSION_SYNTAX', line: 8, col: 15 });
    expect(issue.message).toContain('S0211');
  });
});
