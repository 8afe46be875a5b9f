/**
 * Settings the format does not know or does not accept: unknown names (with a did-you-mean), wrong
 * types, unknown operations and result names, a base URL that is not http(s).
 */
import { describe, expect, it } from 'vitest';
import { errorsOf, expectOnlyError, HEADER, yaml } from '../support/mapping-issues';

describe('unknown and mistyped settings ', () => {
  it('an unknown top-level setting names it and suggests the right one', () => {
    const issue = expectOnlyError(`${HEADER}limit:\n  expressionTimeoutMs: 100\noperations: {}\n`, { code: 'UNKNOWN_SETTING', line: 5, col: 1, mentions: ['"limit"'] });
    expect(issue.message).toContain('did you mean "limits"?');
  });

  it('an unknown setting inside system suggests timeoutMs for timeout', () => {
    const issue = expectOnlyError(`${HEADER}  timeout: 5000\noperations: {}\n`, { code: 'UNKNOWN_SETTING', line: 5, col: 3, mentions: ['"timeout"'] });
    expect(issue.message).toContain('did you mean "timeoutMs"?');
  });

  it('timeoutMs: fast is the wrong type, reported at the value', () => {
    expectOnlyError(`${HEADER}  timeoutMs: fast\noperations: {}\n`, { code: 'WRONG_TYPE', line: 5, col: 14, mentions: ['system.timeoutMs', 'whole number'] });
  });

  it('a missing required setting is reported', () => {
    expectOnlyError(yaml('version: 1', 'name: test', 'operations: {}'), { code: 'MISSING_SETTING', line: 1, col: 1, mentions: ['"system"'] });
  });

  it('an unknown call method lists the allowed ones', () => {
    const text = yaml(`${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: a', '        method: FETCH', '        path: /a', '    output: x');
    expectOnlyError(text, { code: 'VALUE_NOT_ALLOWED', line: 9, col: 17, mentions: ['GET', 'POST'] });
  });
});

describe('names from the contract', () => {
  it('an unknown operation name (GetItems) is UNKNOWN_OPERATION suggesting GetItem', () => {
    const issue = expectOnlyError(`${HEADER}operations:\n  GetItems:\n    output: x\n`, { code: 'UNKNOWN_OPERATION', line: 6, col: 3, mentions: ['"GetItems"'] });
    expect(issue.message).toContain('did you mean GetItem?');
  });

  it('a result name the route does not have (ItemNotFound on GetItem) is UNKNOWN_RESULT listing the route results', () => {
    const text = yaml(
      `${HEADER}operations:`,
      '  GetItem:',
      '    calls:',
      '      - name: article',
      '        method: GET',
      '        path: /articles/{input.number}',
      '    outcomes:',
      '      - when: response.status = 404',
      '        result: ItemNotFound',
      '    output: calls.article.body',
    );
    const issue = expectOnlyError(text, { code: 'UNKNOWN_RESULT', line: 13, col: 17, mentions: ['"ItemNotFound"', 'GET /Items/{number}'] });
    expect(issue.message).toContain('ItemDoesNotExist');
  });

  it('a result name of another route is refused too (Success on GET /Items/{number}, which says Succeed)', () => {
    const text = yaml(
      `${HEADER}operations:`,
      '  GetItem:',
      '    calls:',
      '      - name: article',
      '        method: GET',
      '        path: /articles/{input.number}',
      '    outcomes:',
      '      - when: response.status = 200',
      '        result: Success',
      '    output: calls.article.body',
    );
    expectOnlyError(text, { code: 'UNKNOWN_RESULT', line: 13, col: 17, mentions: ['"Success"', 'Succeed'] });
  });
});

describe('system.baseUrl', () => {
  for (const bad of ['ftp://erp.local/api', 'erp.local/api', 'http://erp.local/api?key=1']) {
    it(`"${bad}" is BASE_URL_INVALID at the value`, () => {
      expectOnlyError(yaml('version: 1', 'name: test', 'system:', `  baseUrl: ${bad}`, 'operations: {}'), { code: 'BASE_URL_INVALID', line: 4, col: 12, mentions: [bad] });
    });
  }

  it('https with a path is accepted', () => {
    expect(errorsOf(yaml('version: 1', 'name: test', 'system:', '  baseUrl: https://erp.example.com/api/v2', 'operations: {}'))).toEqual([]);
  });
});
