import fs from 'node:fs';
import type { Command } from 'commander';
import { EXIT_CODES, type MappingIssue } from '../errors';
import { ROUTES } from '../contract/routes';
import { fixSpellings } from '../mapping/format/fix';
import { checkMappingFile } from '../mapping/load';
import { err, issueLine, out } from './output';
import { collectEnv, envWith } from './usage';
import { displayName } from './yaml-file';

export interface ValidateOptions {
  env?: Record<string, string>;
  json?: boolean;
  fix?: boolean;
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
  issues: readonly MappingIssue[];
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Checks and prints each file as the validate command does; the exit code. */
export function validate(files: string[], options: ValidateOptions): number {
  const env = envWith(options.env);
  const reports: FileReport[] = files.map((filePath) => {
    const file = displayName(filePath);
    if (!fs.existsSync(filePath)) return { file, found: false, ok: false, mapped: 0, issues: [] };
    if (options.fix) fix(filePath, file, options.json === true);
    const result = checkMappingFile(filePath, { env, displayName: file, unsetVariables: 'warning' });
    return { file, found: true, ok: result.mapping !== undefined, mapped: result.mapping?.operations.size ?? 0, issues: result.issues };
  });
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
        ? `${c.green('ok')}  ${report.mapped} of ${ROUTES.length} routes mapped${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}`
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
    .description('Load each mapping exactly as serve does (format, expressions, result names, environment variables) and print every problem as file:line:col  message, then warnings for contract routes the mapping leaves unmapped.\n\nExit code 0 when every file loads (warnings allowed), 1 when one has errors, 2 when a file does not exist.')
    .argument('<files...>', 'mapping files (YAML)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mappings (repeatable)', collectEnv)
    .option('--json', 'print the result as one JSON document')
    .option('--fix', 'first rewrite old spellings of settings to the current ones, in place (comments and layout kept)')
    .action((files: string[], options: ValidateOptions) => run(Promise.resolve(validate(files, options))));
}
