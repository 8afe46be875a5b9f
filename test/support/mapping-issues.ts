/**
 * Loader test helpers: check mapping text and look at the issues as the integrator would see them.
 */
import { expect } from 'vitest';
import type { MappingIssue, MappingIssueCode } from '../../engine/errors';
import { checkMappingText } from '../../engine/mapping/load';

export const FILE = 'customer.yaml';

/** The start of a valid mapping: lines 1–4, so an `operations:` block appended starts on line 5. */
export const HEADER = 'version: 1\nname: test\nsystem:\n  baseUrl: http://erp.local/api\n';

export function errorsOf(text: string, env: NodeJS.ProcessEnv = {}): MappingIssue[] {
  const result = checkMappingText(text, FILE, env);
  const errors = result.issues.filter((issue) => issue.severity === 'error');
  expect(result.mapping === undefined, 'a mapping with errors must not load').toBe(errors.length > 0);
  return errors;
}

export interface ExpectedIssue {
  readonly code: MappingIssueCode;
  readonly line: number;
  readonly col: number;
  /** Words the message must contain: the offending name or value. */
  readonly mentions?: readonly string[];
}

/** Asserts the text has exactly this one error. */
export function expectOnlyError(text: string, expected: ExpectedIssue, env: NodeJS.ProcessEnv = {}): MappingIssue {
  const errors = errorsOf(text, env);
  expect(errors.map(({ code, line, col }) => ({ code, line, col })), JSON.stringify(errors)).toEqual([
    { code: expected.code, line: expected.line, col: expected.col },
  ]);
  expect(errors[0].file).toBe(FILE);
  for (const word of expected.mentions ?? []) expect(errors[0].message).toContain(word);
  return errors[0];
}

/** `lines` joined, so a test can count lines by eye. */
export const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;
