import path from 'node:path';
import type { Command } from 'commander';
import { EXIT_CODES } from '../errors';
import { createHttpClient } from '../http/client';
import { createAnsweringClient } from '../testing/answers';
import { readInput } from './dry-run';
import { withExampleErp } from './example-erp';
import type { RouteSpec } from '../contract/routes';
import type { Mapping } from '../mapping/model';
import { loadOrReport } from './mapping-file';
import { err, issueLine, operationList, out } from './output';
import { appendCase, testCaseOf } from '../testing/recorded-case';
import { resolveOperation } from '../testing/resolve-operation';
import { runMasked } from '../testing/run-case';
import { casesThatCannotRun } from '../testing/test-runner';
import { collectEnv, envWith, usageError } from './usage';

/**
 * `adapter-engine record`: runs one operation live against the external system and appends a test case
 * to the mapping's tests: the input, the system's answers as recorded answers (credential headers and the
 * mapping's secret values removed), and the envelope answered as the expectation.
 */

interface RecordOptions {
  input?: string;
  inputFile?: string;
  out?: string;
  name?: string;
  exampleErp?: boolean;
  env?: Record<string, string>;
}

async function record(mappingFile: string, target: string, options: RecordOptions): Promise<number> {
  const resolved = resolveOperation(target);
  if (!resolved) usageError(`"${target}" is not a contract operation or route; use one of:\n${operationList().join('\n')}`);
  const { route } = resolved;
  const input = readInput(options, resolved.input);
  if (input === undefined && route.inputSource === 'body') usageError(`${route.operationId} takes a JSON body; give it with --input '<json>' or --input-file <file>`);
  const testFile = options.out ?? mappingFile.replace(/\.(ya?ml)$/, '.test.$1');
  if (testFile === mappingFile) usageError(`the mapping file should end in .yaml; name the test file with --out`);
  const erp = await withExampleErp(options.exampleErp, envWith(options.env), { erp: 0, platform: 0 });
  try {
    const mapping = loadOrReport(mappingFile, erp.env);
    if (!mapping) return EXIT_CODES.FAILED;
    return await recordWith(mapping, route, input, testFile, mappingFile, options);
  } finally {
    await erp.close();
  }
}

async function recordWith(mapping: Mapping, route: RouteSpec, input: unknown, testFile: string, mappingFile: string, options: RecordOptions): Promise<number> {
  // Event routes too: recording is a live run (the external system receives what the platform would send).
  const { run, mask } = await runMasked(mapping, route, input, createAnsweringClient({ live: createHttpClient() }));
  const name = options.name ?? `${route.operationId} recorded ${new Date().toISOString()}: ${run.resultName}`;
  const testCase = testCaseOf({ route, input: mask.deep(input), steps: run.steps, resultName: run.resultName, envelope: run.envelope }, name);
  if ('problem' in testCase) throw new Error(`the run cannot be recorded: ${testCase.problem}`);
  // A case the mapping outgrew fails alone in `test`; the one recorded now is added beside it, and that is said.
  for (const stale of casesThatCannotRun(testFile, mapping)) err.line(issueLine({ ...stale, severity: 'warning' }, err.colors));
  try {
    appendCase(testFile, testCase, mappingFile);
  } catch (error) {
    usageError(`cannot write ${testFile}: ${(error as Error).message}`);
  }
  const calls = run.steps.filter((step) => step.step === 'response' || step.step === 'no answer').length;
  out.line(`recorded "${name}" in ${path.relative(process.cwd(), testFile) || testFile}: ${calls} answer(s) of the external system, result ${run.resultName}`);
  if (run.failure) err.line(`the operation failed: ${run.failure.kind}  ${run.failure.message}`);
  return EXIT_CODES.OK;
}

export function registerRecord(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('record')
    .summary('run an operation live and keep it as a test case')
    .description('Run one operation of a mapping live against the external system (event routes too) and append a test case to the mapping\'s tests: the input, the external system\'s answers as recorded answers, and the envelope answered as the expectation. Credential headers and the mapping\'s secret values are removed from what is written.\n\nExit code 0 when the case was written (whatever the result), 1 when the mapping has errors, 2 for usage errors.')
    .argument('<mapping>', 'mapping file (YAML)')
    .argument('<operation>', 'operation id (GetWorkOrderByCode), route ("GET /WorkOrders/Code") or request line ("GET /Items/A-100")')
    .option('-i, --input <json>', 'the input as JSON: query or path parameters as an object, or the request body')
    .option('-f, --input-file <file>', 'the input from a JSON or YAML file')
    .option('-o, --out <file>', 'test file to add the case to (default: the mapping\'s, e.g. mappings/acme.test.yaml); created when missing')
    .option('--name <text>', 'the case\'s name (default: the operation, the time and the result)')
    .option('--example-erp', 'start the bundled example ERP and point ERP_URL at it (only when ERP_URL is not set)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mapping (repeatable)', collectEnv)
    .action((mapping: string, operation: string, options: RecordOptions) => run(record(mapping, operation, options)));
}
