import fs from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { EXIT_CODES } from '../errors';
import { createHttpClient } from '../http/client';
import { checkAnswers, createAnsweringClient, readAnswersFile, type RecordedAnswers } from '../testing/answers';
import { explainExpressions, renderExplained } from './dry-run-explain';
import { renderDryRun, renderPushRun } from './dry-run-render';
import { fileUploadInput, isFileRoute } from './file-input';
import { withExampleErp } from './example-erp';
import { loadOrReport } from './mapping-file';
import { err, issueLine, operationList, out } from './output';
import { resolveOperation } from '../testing/resolve-operation';
import { maskerOf, runMasked, runPushCase } from '../testing/run-case';
import { collectEnv, envWith, usageError } from './usage';
import { displayName } from '../mapping/yaml-file';
import { canChangeErp } from '../mapping/model';
import type { TraceStep } from '../trace/steps';

interface DryRunOptions {
  input?: string;
  inputFile?: string;
  file?: string;
  answers?: string;
  live?: boolean;
  exampleErp?: boolean;
  env?: Record<string, string>;
  json?: boolean;
  explain?: boolean;
}

export function readInput(options: Pick<DryRunOptions, 'input' | 'inputFile'>, fromTarget: Record<string, string> | undefined): unknown {
  if (options.input !== undefined && options.inputFile !== undefined) usageError('give the input once: --input or --input-file, not both');
  if (options.input !== undefined) {
    try {
      return JSON.parse(options.input);
    } catch (error) {
      return usageError(`--input is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (options.inputFile !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(options.inputFile, 'utf8');
    } catch (error) {
      return usageError(`cannot read the input file ${options.inputFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    try {
      return parseYaml(text) as unknown; // YAML reads JSON too
    } catch (error) {
      return usageError(`the input file ${options.inputFile} is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  return fromTarget;
}

/** `POST /push/<name>` (or `/push/<name>`): a push endpoint of the mapping rather than a contract route. */
const PUSH_TARGET = /^(?:POST\s+)?\/push\/([^\s/?]+)\/?$/i;

async function dryRunPush(mappingFile: string, name: string, options: DryRunOptions): Promise<number> {
  if (options.answers) usageError('--answers is for contract routes; a push\'s platform calls are not sent without --live (a synthetic 200 stands in)');
  const input = readInput(options, undefined);
  if (input === undefined) usageError(`a push takes a JSON body; give it with --input '<json>' or --input-file <file>`);
  const erp = await withExampleErp(options.exampleErp, envWith(options.env), { erp: 0, platform: 0 });
  try {
    const mapping = loadOrReport(mappingFile, erp.env);
    if (!mapping) return EXIT_CODES.FAILED;
    if (!mapping.pushes.has(name)) usageError(`${mapping.name} has no push endpoint "${name}"; it has ${[...mapping.pushes.keys()].join(', ') || 'none'}`);
    const client = createAnsweringClient({ live: options.live ? createHttpClient() : undefined, notSent: !options.live });
    const mask = maskerOf(mapping);
    let run;
    try {
      run = await runPushCase(mapping, name, input, client, mask);
    } finally {
      client.close();
    }
    const answers = options.live ? `live, from ${mask.text(mapping.platform?.baseUrl.href ?? '')}` : 'none: the platform calls are not sent without --live (a synthetic 200 answer stands in)';
    if (options.json) out.json({ mapping: { name: mapping.name, file: mapping.file }, push: name, answers: options.live ? 'live' : 'not sent', input: mask.deep(input), steps: run.steps, status: run.status, answer: run.body });
    else renderPushRun(run, { mapping: mapping.name, file: mapping.file, input: mask.deep(input), answers });
    return run.status === 202 && (run.delivery === undefined || run.delivery.verdict === 'delivered') ? EXIT_CODES.OK : EXIT_CODES.FAILED;
  } finally {
    await erp.close();
  }
}

async function dryRun(mappingFile: string, target: string, options: DryRunOptions): Promise<number> {
  const push = PUSH_TARGET.exec(target.trim());
  if (push) return dryRunPush(mappingFile, push[1], options);
  const resolved = resolveOperation(target);
  if (!resolved) usageError(`"${target}" is not a contract operation or route; use one of:\n${operationList().join('\n')}`);
  const { route } = resolved;
  if (options.live && options.answers) usageError('--live and --answers exclude each other: answers come either from the external system or from the file');
  const given = readInput(options, resolved.input);
  const input = options.file === undefined ? given : fileUploadInput(route, options.file, given);
  if (input === undefined && route.inputSource === 'body') usageError(`${route.operationId} takes a JSON body; give it with --input '<json>' or --input-file <file>${isFileRoute(route) ? ', or the file itself with --file <path>' : ''}`);

  let answers: RecordedAnswers | undefined;
  const erp = await withExampleErp(options.exampleErp, envWith(options.env), { erp: 0, platform: 0 });
  try {
    // Recorded answers send nothing: the ERP's URL and secrets may be unset (each a warning).
    const mapping = loadOrReport(mappingFile, erp.env, options.answers ? 'warning' : 'error');
    if (!mapping) return EXIT_CODES.FAILED;
    if (options.answers) {
      if (!fs.existsSync(options.answers)) usageError(`answers file not found: ${options.answers}`);
      const read = readAnswersFile(options.answers);
      const issues = read.source && read.answers ? checkAnswers(read.source, [], read.answers, mapping.operations.get(route.operationId), mapping.system) : read.issues;
      if (issues.length > 0) {
        for (const issue of issues) err.line(issueLine(issue, err.colors));
        return EXIT_CODES.USAGE;
      }
      answers = read.answers;
    }
    const sendsLive = !answers && (route.kind === 'data' || options.live === true);
    // Without --live a dry run never changes the ERP: a call that can (canChangeErp) is shown, not sent.
    const operation = mapping.operations.get(route.operationId);
    const heldBack = new Set(!options.live && operation?.mode === 'flow' ? operation.calls.filter(canChangeErp).map((call) => call.name) : []);
    const client = createAnsweringClient({ answers, live: sendsLive ? createHttpClient() : undefined, notSent: route.kind === 'event' && !options.live, heldBack });
    const { run, mask } = await runMasked(mapping, route, input, client);
    const answersFrom = answers ? `recorded, from ${displayName(options.answers as string)}`
      : sendsLive ? `live, from ${mask.text(mapping.system.baseUrl.href)}`
      : 'none: event routes are not sent without --live (a synthetic 200 answer stands in)';
    if (options.json) {
      out.json({
        mapping: { name: mapping.name, file: mapping.file },
        operation: route.operationId,
        route: `${route.method} ${route.path}`,
        mode: run.mode,
        answers: answers ? 'recorded' : sendsLive ? 'live' : 'not sent',
        input: mask.deep(input ?? {}),
        steps: run.steps,
        failure: run.failure ?? null,
        unanswered: client.unanswered,
        resultName: run.resultName,
        envelope: run.envelope,
        ...(options.explain ? { expressions: explainExpressions(mapping) } : {}),
      });
    } else {
      renderDryRun(run, { mapping: mapping.name, file: mapping.file, input: mask.deep(input ?? {}), answers: answersFrom, unanswered: client.unanswered, answersFile: options.answers && displayName(options.answers) });
      if (options.explain) renderExplained(explainExpressions(mapping));
    }
    return run.envelope.isResultSuccess && client.unanswered.length === 0 && !wouldBeDead(run.steps) ? EXIT_CODES.OK : EXIT_CODES.FAILED;
  } finally {
    await erp.close();
  }
}

/** The outbox delivery of the run would end as a dead letter: a success to the platform that the ERP never takes. */
const wouldBeDead = (steps: readonly TraceStep[]) => steps.some((step) => step.step === 'delivery' && step.verdict === 'dead');

export function registerDryRun(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('dry-run')
    .summary('run one operation and show every step')
    .description('Run one operation of a mapping and show, in order, each request to the external system (secrets masked), each answer, the outcome rules, the output, the contract check and the final envelope.\n\nWithout --live or --answers only calls that cannot change the external system are sent (GET, and calls marked safe: true) on data routes; any other call is shown with a synthetic answer, and event routes send nothing.\nExit code 0 when the envelope is a success, 1 when it is a failure, the outbox delivery would be a dead letter (or the mapping has errors), 2 for usage errors.')
    .argument('<mapping>', 'mapping file (YAML)')
    .argument('<operation>', 'operation id (GetWorkOrderByCode), route ("GET /WorkOrders/Code"), request line ("GET /Items/A-100"), or a push endpoint ("POST /push/NewOrder")')
    .option('-i, --input <json>', 'the input as JSON: query or path parameters as an object, or the request body')
    .option('-f, --input-file <file>', 'the input from a JSON or YAML file')
    .option('--file <path>', 'file routes (POST /WorkOrders/File, POST /Items/File): the file to upload; sent Base64 in fileContent, fileType from the extension (.csv, .json) unless --input gives it')
    .option('-a, --answers <file>', 'recorded answers of the external system by call name (YAML or JSON); nothing is sent')
    .option('--live', 'send every call, those that can change the external system (POST, PUT, PATCH, DELETE not marked safe) and event routes too')
    .option('--example-erp', 'start the bundled example ERP and point ERP_URL at it (only when ERP_URL is not set)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mapping (repeatable)', collectEnv)
    .option('--json', 'print the trace as one JSON document')
    .option('--explain', 'also show, for each expression that ran, how it was evaluated and the JavaScript generated for it')
    .action((mapping: string, operation: string, options: DryRunOptions) => run(dryRun(mapping, operation, options)));
}
