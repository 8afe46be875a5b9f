import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EXIT_CODES } from '../errors';
import { err, issueLine, out } from './output';
import { shortJson } from '../testing/partial-match';
import { isTestFileName } from '../testing/test-file';
import { runTestFile, type FileResult } from '../testing/test-runner';
import { driftWarnings } from './drift-warnings';
import { unsetNote, unsetVariables } from './unset-note';
import { collectEnv, stateDirOf, usageError } from './usage';
import { openDriftSightings } from '../state/state-store';
import type { DriftSeen } from '../state/drift-sightings';

interface TestOptions {
  env?: Record<string, string>;
  json?: boolean;
  stateDir?: string;
}

const DEFAULT_DIR = 'mappings';

/** Files as given; directories give their *.test.yaml files (not recursive: tests sit beside mappings). */
function findTestFiles(args: readonly string[]): string[] {
  const targets = args.length > 0 ? args : [DEFAULT_DIR];
  const files: string[] = [];
  for (const target of targets) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(target);
    } catch {
      return usageError(args.length > 0 ? `no such file or directory: ${target}` : `no ${DEFAULT_DIR}/ directory here; run from the project root or name the test files`);
    }
    if (stat.isDirectory()) files.push(...fs.readdirSync(target).filter(isTestFileName).sort().map((name) => path.join(target, name)));
    else files.push(target);
  }
  if (files.length === 0) usageError(`no test files (*.test.yaml) in ${targets.join(', ')}`);
  return files;
}

function printFile(result: FileResult, drift: readonly string[]): void {
  const c = out.colors;
  out.line(`${c.bold(result.file)}${result.mapping ? c.dim(`  (mapping ${result.mapping})`) : ''}`);
  for (const warning of drift) out.line(`  ${c.yellow(warning)}`);
  // Unset variables are said once, after the run, and only when it failed (unset-note.ts).
  for (const issue of [...result.warnings.filter((warning) => warning.code !== 'ENV_UNSET'), ...result.issues]) out.line(`  ${issueLine(issue, c)}`);
  for (const testCase of result.cases) {
    if (testCase.passed) {
      out.line(`  ${c.green('✓')} ${testCase.name}`);
      continue;
    }
    out.line(`  ${c.red('✗')} ${testCase.name}  ${c.dim(testCase.at)}`);
    for (const problem of testCase.problems ?? []) out.line(`      ${issueLine(problem, c)}`);
    for (const mismatch of testCase.mismatches) {
      out.line(`      ${c.bold(mismatch.path)}${mismatch.note ? `  ${c.dim(mismatch.note)}` : ''}`);
      out.line(`        ${c.green('- expected')}  ${shortJson(mismatch.expected)}`);
      out.line(`        ${c.red('+ actual')}    ${shortJson(mismatch.actual)}`);
    }
    // A failure may list its problems one per line (each at its mapping line).
    if (testCase.failure) for (const [index, line] of testCase.failure.split('\n').entries()) out.line(`      ${c.dim(index === 0 ? `engine: ${line}` : `  ${line}`)}`);
  }
  if (result.coverage.length > 0) {
    out.line(`  ${c.yellow('not exercised')} ${c.dim('(validate --strict makes these errors)')}`);
    for (const finding of result.coverage) out.line(`    ${issueLine(finding, c)}`);
  }
}

/**
 * The ERP drift a server saw live, where `serve` keeps it with the same settings: DATABASE_URL, else
 * the state directory. Only warnings come of it, so a store that cannot be read is said and skipped.
 */
async function driftSeen(stateDir: string): Promise<DriftSeen[]> {
  const location = { stateDir, databaseUrl: process.env.DATABASE_URL || undefined };
  try {
    const sightings = await openDriftSightings(location);
    try {
      return await sightings.read();
    } finally {
      await sightings.close();
    }
  } catch (error) {
    err.line(`warning: the ERP drift seen live could not be read (${(error as Error).message}); no test is checked against it`);
    return [];
  }
}

async function test(args: string[], options: TestOptions): Promise<number> {
  const files = findTestFiles(args);
  const results: (FileResult & { drift?: string[] })[] = [];
  const seen = await driftSeen(stateDirOf(options.stateDir));
  for (const file of files) {
    const result = await runTestFile(file, options.env ?? {});
    const drift = driftWarnings(file, seen);
    results.push(drift.length > 0 ? { ...result, drift } : result);
    if (!options.json) printFile(result, drift);
  }
  const cases = results.flatMap((result) => result.cases);
  const passed = cases.filter((testCase) => testCase.passed).length;
  const failed = cases.length - passed;
  const broken = results.filter((result) => result.issues.length > 0).length;
  const ok = failed === 0 && broken === 0;
  if (options.json) {
    out.json({ ok, passed, failed, brokenFiles: broken, files: results });
  } else {
    const c = out.colors;
    const parts = [c.green(`${passed} passed`), failed > 0 ? c.red(`${failed} failed`) : `${failed} failed`];
    if (broken > 0) parts.push(c.red(`${broken} file(s) could not run`));
    out.line('');
    out.line(`${ok ? c.green('ok') : c.red('FAILED')}  ${parts.join(', ')}  ${c.dim(`(${results.length} file${results.length === 1 ? '' : 's'})`)}`);
    const note = ok ? undefined : unsetNote(unsetVariables(results.flatMap((result) => result.warnings)));
    if (note) out.line(c.dim(note));
  }
  return ok ? EXIT_CODES.OK : EXIT_CODES.FAILED;
}

export function registerTest(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('test')
    .summary('run mapping tests (*.test.yaml)')
    .description('Run mapping tests: YAML files beside the mapping (mappings/example.test.yaml tests mappings/example.yaml). Each case gives an input, the external system\'s answers by call name, and the expected envelope (partial match, result by name). Nothing is sent to any external system.\n\nWithout arguments it runs every *.test.yaml in mappings/. Exit code 0 when every case passes, 1 when one fails or a test file or mapping has errors, 2 for usage errors.')
    .argument('[files...]', 'test files or directories (default: mappings/)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mappings (repeatable; wins over the test file\'s env)', collectEnv)
    .option('--json', 'print the results as one JSON document')
    .option('--state-dir <dir>', 'a server\'s state directory: warn when a test\'s recorded answers are older than the ERP drift it saw live (default: env ADAPTER_STATE_DIR, else .adapter-state); with DATABASE_URL set, as for serve, the drift is read from that PostgreSQL instead')
    .action((files: string[], options: TestOptions) => run(test(files, options)));
}
