/**
 * Problems of the YAML itself and of ${VAR} expansion: refused with file:line:col and an issue code.
 */
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { errorsOf, expectOnlyError, FILE, HEADER, yaml } from '../support/mapping-issues';

describe('YAML syntax', () => {
  it('a nested mapping on one line is YAML_SYNTAX at the offending value', () => {
    expectOnlyError(yaml(
      'version: 1',
      'name: test: oops',
      'system:',
      '  baseUrl: http://erp.local/api',
      'operations: {}',
    ), { code: 'YAML_SYNTAX', line: 2, col: 7, mentions: ['YAML'] });
  });

  it('an unclosed flow sequence is YAML_SYNTAX', () => {
    const [issue] = errorsOf(`${HEADER}operations:\n  GetItem: [unclosed\n`);
    expect(issue.code).toBe('YAML_SYNTAX');
    expect(issue.message).toContain(']');
  });

  it('a key written twice is YAML_DUPLICATE_KEY at the second one', () => {
    expectOnlyError(yaml(
      'version: 1',
      'name: test',
      'system:',
      '  baseUrl: http://erp.local/api',
      '  timeoutMs: 100',
      '  timeoutMs: 200',
      'operations: {}',
    ), { code: 'YAML_DUPLICATE_KEY', line: 6, col: 3, mentions: ['twice'] });
  });

  it('an unknown tag (!foo) is refused as YAML_WARNING at the tag', () => {
    expectOnlyError(`${HEADER}operations:\n  GetItem: !foo\n    output: x\n`, { code: 'YAML_WARNING', line: 6, col: 12, mentions: ['!foo'] });
  });

  it('an alias bomb is refused (YAML_ALIAS_LIMIT) without expanding it', () => {
    const bomb = yaml(
      'version: 1',
      'name: bomb',
      'description: &l0 lol',
      'x1: &l1 [*l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0]',
      'x2: &l2 [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]',
      'x3: &l3 [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]',
      'x4: &l4 [*l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3]',
      'x5: &l5 [*l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4]',
      'x6: &l6 [*l5, *l5, *l5, *l5, *l5, *l5, *l5, *l5, *l5, *l5]',
      'system:',
      '  baseUrl: http://erp.local/api',
      'operations: {}',
    );
    const [issue, ...rest] = errorsOf(bomb);
    expect(rest).toEqual([]);
    expect(issue.code).toBe('YAML_ALIAS_LIMIT');
    expect(issue.message).toContain('alias');
  });
});

describe('${VAR} expansion', () => {
  it('an unset variable is ENV_UNSET at the line and column of the variable', () => {
    expectOnlyError(yaml(
      'version: 1',
      'name: test',
      'system:',
      '  baseUrl: ${ERP_URL}',
      '  headers:',
      '    Authorization: Bearer ${ERP_TOKEN}',
      'operations: {}',
    ), { code: 'ENV_UNSET', line: 6, col: 27, mentions: ['ERP_TOKEN'] }, { ERP_URL: 'http://erp.local/api' });
  });

  it('each unset variable is reported', () => {
    const errors = errorsOf(yaml('version: 1', 'name: ${CUSTOMER}', 'system:', '  baseUrl: ${ERP_URL}', 'operations: {}'));
    expect(errors.map(({ code, line, col }) => ({ code, line, col }))).toEqual([
      { code: 'ENV_UNSET', line: 2, col: 7 },
      { code: 'ENV_UNSET', line: 4, col: 12 },
    ]);
    expect(errors[1].message).toContain('ERP_URL');
  });

  it('a malformed reference (${1X}) is ENV_REFERENCE_INVALID naming the text', () => {
    expectOnlyError(yaml('version: 1', 'name: test', 'system:', '  baseUrl: http://${1X}/api', 'operations: {}'), { code: 'ENV_REFERENCE_INVALID', line: 4, col: 19, mentions: ['${1X}'] });
  });

  it('$${ is the literal text ${ and set variables are expanded', () => {
    const text = yaml('version: 1', 'name: costs $${ERP_URL}', 'system:', '  baseUrl: ${ERP_URL}', 'operations: {}');
    const { mapping } = checkMappingText(text, FILE, { ERP_URL: 'http://erp.local/api' });
    expect(mapping?.name).toBe('costs ${ERP_URL}');
    expect(mapping?.system.baseUrl.href).toBe('http://erp.local/api');
  });
});

describe('YAML indentation mistakes: a hint at the line to fix', () => {
  const system = ['version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api'];

  it('a line indented deeper than the value above it', () => {
    expectOnlyError(yaml(...system, '    headers: { Accept: application/json }', 'operations: {}'),
      { code: 'YAML_SYNTAX', line: 5, col: 5, mentions: ['check the indentation of line 5'] });
  });

  it('a tab used as indentation', () => {
    expectOnlyError(yaml('version: 1', 'name: test', 'system:', '\tbaseUrl: http://erp.local/api', 'operations: {}'),
      { code: 'YAML_SYNTAX', line: 4, col: 2, mentions: ['Tabs', 'indent with spaces', 'check the indentation of line 4'] });
  });

  it('a setting of a list item written less deep than the item', () => {
    expectOnlyError(yaml(...system, 'operations:', '  GetItem:', '    calls:', '      - name: article', '     method: GET'),
      { code: 'YAML_SYNTAX', line: 9, col: 6, mentions: ['check the indentation of line 9'] });
  });

  it('valid YAML whose setting landed in the block above the one it belongs to', () => {
    const issues = errorsOf(yaml(...system, 'operations:', '  GetItem:', '    calls:', '      - name: article', '        method: GET', '    path: /articles/{input.number}', '    output: calls.article.body'));
    expect(issues).toContainEqual(expect.objectContaining({
      code: 'UNKNOWN_SETTING', line: 10, col: 5,
      message: '"path" is not a setting of operations.GetItem but of operations.GetItem.calls[0]: check the indentation of line 10',
    }));
  });

  it('a setting of the enclosing block written one level too deep', () => {
    const issues = errorsOf(yaml(...system, '  retry:', '    attempts: 3', '    timeoutMs: 100', 'operations: {}'));
    expect(issues).toContainEqual(expect.objectContaining({ code: 'UNKNOWN_SETTING', line: 7, col: 5, message: expect.stringContaining('"timeoutMs" is not a setting of system.retry but of system: check the indentation of line 7') }));
  });
});
