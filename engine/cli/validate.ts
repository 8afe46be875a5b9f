import fs from 'node:fs';
import type { Command } from 'commander';
import { EXIT_CODES, type MappingIssue } from '../errors';
import { ROUTES } from '../contract/routes';
import { fixSpellings } from '../mapping/format/fix';
import { checkMappingFile } from '../mapping/load';
import { err, issueLine, out } from './output';
import { strictIssues } from './strict';
import { answerFieldWarnings } from '../testing/answer-fields';
import { recordedBodies } from '../testing/recorded-bodies';
import { collectEnv, envWith, usageError } from './usage';
import { displayName } from '../mapping/yaml-file';

export interface ValidateOptions {
  env?: Record<string, string>;
  json?: boolean;
  fix?: boolean;
  strict?: boolean;
  tests?: string;
}

/** Rewrites each file to the current spellings before it is checked; says what it changed. */
function fix(filePath: string, file: string, json: boolean): number {
  const before = fs.readFileSync(filePath, 'utf8');
  const { text, changes } = fixSpellings(file, before);
  if (changes.length === 0 || text === before) return 0;
  fs.writeFileSync(filePath, text);
  if (!json) for (const change of changes) out.line(`${file}:${change.line}:${change.col}  fixed: ${change.respelling.kind === 'key' ? `${change.respelling.from} → ${change.respelling.to}` : `${String(change.path[change.path.length - 1])} now reads the page as response`}`);
  return changes.length;
}

interface FileReport {
  file: string;
  found: boolean;
  ok: boolean;
  mapped: number;
  /** The push endpoints' paths (POST /push/<name>). */
  pushes: string[];
  issues: readonly MappingIssue[];
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Checks and prints each file as the validate command does (with --strict, runs its tests too); the exit code. */
export async function validate(files: string[], options: ValidateOptions): Promise<number> {
  const env = envWith(options.env);
  if (options.tests !== undefined && !options.strict) return usageError('--tests names the test file of --strict; add --strict');
  if (options.tests !== undefined && files.length > 1) return usageError('--tests names the test file of one mapping; validate one file with it');
  const reports: FileReport[] = [];
  for (const filePath of files) {
    const file = displayName(filePath);
    if (!fs.existsSync(filePath)) {
      reports.push({ file, found: false, ok: false, mapped: 0, pushes: [], issues: [] });
      continue;
    }
    if (options.fix) fix(filePath, file, options.json === true);
    const result = checkMappingFile(filePath, { env, displayName: file, unsetVariables: 'warning' });
    const strict = options.strict && result.mapping ? await strictIssues(filePath, options.tests, options.env ?? {}) : [];
    // The answers the mapping's tests recorded show the ERP's field names: a near miss is a warning.
    const recorded = result.mapping ? answerFieldWarnings(result.answerReads ?? [], recordedBodies(filePath, options.tests === undefined ? [] : [options.tests])) : [];
    const issues = [...result.issues, ...recorded, ...strict];
    const pushes = [...(result.mapping?.pushes.keys() ?? [])].map((name) => `/push/${name}`);
    reports.push({ file, found: true, ok: result.mapping !== undefined && strict.length === 0, mapped: result.mapping?.operations.size ?? 0, pushes, issues });
  }
  const missing = reports.filter((report) => !report.found);
  if (options.json) {
    out.json({ ok: reports.every((report) => report.ok), files: reports });
  } else {
    const c = out.colors;
    for (const report of reports) {
      if (!report.found) {
        err.line(`${c.red(report.file)}  file not found`);
        continue;
      }
      for (const issue of report.issues) out.line(issueLine(issue, c));
      const errors = report.issues.filter((issue) => issue.severity === 'error').length;
      const warnings = report.issues.length - errors;
      const summary = report.ok
        ? `${c.green('ok')}  ${report.mapped} of ${ROUTES.length} routes mapped${report.pushes.length > 0 ? `, ${plural(report.pushes.length, 'push endpoint')} (POST ${report.pushes.join(', ')})` : ''}${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}`
        : c.red(`${plural(errors, 'error')}${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}`);
      out.line(`${c.bold(report.file)}  ${summary}`);
    }
  }
  if (missing.length > 0) return EXIT_CODES.USAGE;
  return reports.every((report) => report.ok) ? EXIT_CODES.OK : EXIT_CODES.FAILED;
}

export function registerValidate(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('validate')
    .summary('check mapping files and print every problem')
    .description('Load each mapping exactly as serve does (format, expressions, result names, environment variables) and print every problem as file:line:col  message, then warnings for contract routes the mapping leaves unmapped.\n\nWith --strict the mapping\'s tests run as well, and what they never exercised is an error.\n\nExit code 0 when every file loads (warnings allowed), 1 when one has errors, 2 when a file does not exist.')
    .argument('<files...>', 'mapping files (YAML)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mappings (repeatable)', collectEnv)
    .option('--json', 'print the result as one JSON document')
    .option('--fix', 'first rewrite old spellings of settings to the current ones, in place (comments and layout kept)')
    .option('--strict', 'also run the mapping\'s test file (<mapping>.test.yaml beside it): failing cases, expressions that gave nothing in every case and output fields no case filled are errors (for CI)')
    .option('--tests <file>', 'with --strict: the test file, instead of <mapping>.test.yaml')
    .action((files: string[], options: ValidateOptions) => run(validate(files, options)));
}
