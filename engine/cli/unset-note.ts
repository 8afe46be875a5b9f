import type { MappingIssue } from '../errors';

/**
 * `test` and `diff` run on recorded answers, which need neither the ERP's address nor its secrets: an
 * unset variable stands in as its `${NAME}` text. Listing each one at its line for every file told people
 * to set what they need not; it is said once, after the run, and only when the run has failed or
 * differed (then a case that expects a variable's value in what was sent may be why).
 */

/** The variable an ENV_UNSET issue names. */
function unsetName(issue: MappingIssue): string | undefined {
  return issue.code === 'ENV_UNSET' ? /environment variable (\w+)/.exec(issue.message)?.[1] : undefined;
}

/** The variables the issues say are unset, each once, in order. */
export function unsetVariables(issues: readonly MappingIssue[]): string[] {
  return [...new Set(issues.flatMap((issue) => unsetName(issue) ?? []))];
}

/** The one line said about them; undefined when there are none. */
export function unsetNote(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const list = names.join(', ');
  return `note: ${list} ${names.length === 1 ? 'is' : 'are'} not set; the run used ${names.length === 1 ? 'its' : 'their'} \${NAME} text instead (recorded answers need no ERP address or secret). A case that expects ${names.length === 1 ? 'its value' : 'their values'} in what is sent needs ${names.length === 1 ? 'it' : 'them'}: set ${names.length === 1 ? 'it' : 'them'} with --env or the test file's env:`;
}
