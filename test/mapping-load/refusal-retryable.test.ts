/**
 * Issue 39, "Also seen": a refusal rule whose `retryable` gives false dead-letters a 503 after one try,
 * where the engine would try it again without the rule. `validate` warns where `retryable` can be false
 * for such a status: when it does not test response.status.
 */
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { FILE, HEADER, yaml } from '../support/mapping-issues';

const withRetryable = (retryable: string) => HEADER + yaml(
  '  refusal:',
  '    when: $exists(response.body.error)',
  `    retryable: ${retryable}`,
  'operations:',
  '  GetExternalIndexableValueLabel:',
  '    static: { label: Order }',
);

const warningsOf = (text: string) => checkMappingText(text, FILE, {}).issues.filter((issue) => issue.severity === 'warning' && issue.code !== 'UNMAPPED_ROUTE');

describe('refusal.retryable and the statuses the engine tries again', () => {
  it('a rule over the body alone is warned about at its line and column, with the fix', () => {
    const warnings = warningsOf(withRetryable('response.body.error.code = "LOCKED"'));
    expect(warnings.map(({ code, line, col }) => ({ code, line, col }))).toEqual([{ code: 'SETTINGS_DISAGREE', line: 7, col: 16 }]);
    expect(warnings[0].message).toContain('system.refusal.retryable does not test response.status');
    expect(warnings[0].message).toContain('408, 429 or 5xx');
    expect(warnings[0].message).toContain('response.status in [408, 429] or response.status >= 500 or (response.body.error.code = "LOCKED")');
  });

  it('a rule that tests the status, or true, is not', () => {
    expect(warningsOf(withRetryable('response.status >= 500 or response.body.error.code = "LOCKED"'))).toEqual([]);
    expect(warningsOf(withRetryable('true'))).toEqual([]);
  });
});
