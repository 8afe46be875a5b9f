import { ROUTES } from '../../contract/routes';
import { EXIT_CODE_MEANINGS, EXIT_CODES, FAILURE_RESULTS, MAPPING_ISSUE_CODES } from '../../errors';

/**
 * docs/errors.md, generated from the error catalogue (engine/errors/): load issues by who raises them,
 * request failures with the results that stand for them, and the exit codes of the command line.
 */

const STAGE_TITLES = {
  yaml: 'Reading the YAML',
  structure: 'The structure check (the format\'s JSON Schema)',
  compile: 'Compiling expressions, templates and operations',
  'test files': 'Test files and recorded answers (adapter-engine test, dry-run --answers)',
  'test runs': 'What the test cases never exercised (warnings of adapter-engine test, errors of validate --strict)',
} as const;

export function renderErrorReference(): string {
  const out: string[] = [
    '# Errors',
    '',
    'Generated from the error catalogue (`engine/errors/`) by `npm run docs`; do not edit by hand.',
    'Codes are stable: tools and tests may rely on them. Messages are for people and may change.',
    '',
    '## Load issues',
    '',
    'Found while loading a mapping file and printed as `file:line:col  message` (with `validate --json`: the',
    'code, the position and the path of the setting, e.g. `operations.GetItem.calls[0].retry`). A mapping with',
    'an error is not served; warnings are printed and the mapping loads.',
    '',
  ];
  for (const [stage, title] of Object.entries(STAGE_TITLES)) {
    out.push(`### ${title}`, '', '| code | meaning |', '|---|---|');
    for (const [code, entry] of Object.entries(MAPPING_ISSUE_CODES)) if (entry.stage === stage) out.push(`| \`${code}\` | ${entry.meaning} |`);
    out.push('');
  }
  out.push(
    '## Request failures',
    '',
    'What can go wrong while serving one request when no outcome rule of the mapping decided the result.',
    'The engine answers the first result of the list that the route has; see [results per route](results.md).',
    '',
    '| failure | results, in order of preference | routes that have none of them |',
    '|---|---|---|',
  );
  for (const [kind, results] of Object.entries(FAILURE_RESULTS)) {
    const without = ROUTES.filter((route) => !results.some((name) => name in route.results)).map((route) => route.operationId);
    out.push(`| \`${kind}\` | ${results.map((name) => `\`${name}\``).join(', ')} | ${without.length === 0 ? '—' : without.join(', ')} |`);
  }
  out.push('', '## Exit codes of adapter-engine', '', '| code | name | meaning |', '|---|---|---|');
  for (const [name, code] of Object.entries(EXIT_CODES)) out.push(`| ${code} | \`${name}\` | ${EXIT_CODE_MEANINGS[name as keyof typeof EXIT_CODES]} |`);
  return `${out.join('\n')}\n`;
}

/** The result numbers of every route, for docs/results.md. */
export function renderRouteResults(): string {
  const out: string[] = ['Generated from the contract table (`engine/contract/routes.ts`) by `npm run docs`.', ''];
  for (const route of ROUTES) {
    out.push(`### ${route.method} ${route.path} (${route.operationId})`, '', `${route.kind === 'event' ? 'Event route: the answer has no data.' : 'Data route.'} Success: \`${route.successResult}\`.`, '');
    out.push('| result | number |', '|---|---|');
    for (const [name, number] of Object.entries(route.results)) out.push(`| \`${name}\` | ${number} |`);
    out.push('');
  }
  return out.join('\n');
}
