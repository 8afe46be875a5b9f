import fs from 'node:fs';
import type { Command } from 'commander';
import { findRoute, type RouteSpec } from '../contract/routes';
import type { EventState, JournalEntry } from '../journal/journal-entry';
import { EXIT_CODES } from '../errors';
import { JOURNAL_QUERY, type JournalQuery } from '../journal/query';
import { renderDryRun, renderPushRun } from './dry-run-render';
import { out, table } from './output';
import { inputOf, testCaseOf, withCase } from '../testing/recorded-case';
import { usageError } from './usage';
import { fetchAdmin, type AdminOptions } from './admin-client';
import { allEntries, errorOf, listRequests } from './journal-read';

/**
 * `adapter-engine requests`: the request journal of a running server, read from its admin listener.
 * `show` prints one request as `dry-run` does; `export --as-test` writes it as a mapping test case.
 */

async function list(options: AdminOptions & JournalQuery): Promise<number> {
  const requests = await listRequests(options, options);
  if (options.json) {
    out.json(requests);
    return EXIT_CODES.OK;
  }
  const c = out.colors;
  if (requests.length === 0) {
    out.line('no requests match');
    return EXIT_CODES.OK;
  }
  out.line(table([
    ['TIME', 'ID', 'MAPPING', 'OPERATION', 'RESULT', 'MS', 'REQUEST'].map((title) => c.bold(title)),
    ...requests.map((r) => [new Date(r.at).toISOString(), r.id, r.mapping, r.operation, r.success ? c.green(r.result) : c.red(r.result), String(Math.round(r.durationMs)), `${r.method} ${r.path}`]),
  ]).join('\n'));
  return EXIT_CODES.OK;
}

async function entryFor(id: string, options: AdminOptions): Promise<{ entry: JournalEntry; route?: RouteSpec }> {
  const { status, body } = await fetchAdmin(options, `/requests/${encodeURIComponent(id)}`);
  if (status === 404 || status === 409) usageError(errorOf(body));
  if (status !== 200) throw new Error(`GET /requests/${id} answered ${status}: ${errorOf(body)}`);
  const entry = body as JournalEntry;
  if (entry.mode === 'push') return { entry };
  const route = findRoute(entry.operation);
  if (!route) throw new Error(`the journal names an operation this engine does not know: ${entry.operation}`);
  return { entry, route };
}

async function show(id: string, options: AdminOptions): Promise<number> {
  const { entry, route } = await entryFor(id, options);
  if (options.json) {
    out.json(entry);
    return EXIT_CODES.OK;
  }
  const answers = `live, at ${entry.at}, request id ${entry.requestId}, ${Math.round(entry.durationMs)} ms`;
  if (!route || !entry.envelope) {
    const answer = entry.answer ?? { status: 0, body: null };
    renderPushRun({ push: entry.operation.replace(/^push\//, ''), steps: [...entry.steps], status: answer.status, body: answer.body }, {
      title: `request ${entry.id}`, mapping: entry.mapping, file: entry.file, input: entry.request.body, answers, auth: 'checked by the server',
    });
    for (const line of eventLines(entry.events ?? [], 'the platform')) out.line(line);
    return entry.success ? EXIT_CODES.OK : EXIT_CODES.FAILED;
  }
  const mode = entry.mode as Parameters<typeof renderDryRun>[0]['mode'];
  renderDryRun({ route, mode, steps: [...entry.steps], failure: entry.failure, envelope: entry.envelope, resultName: entry.result }, {
    title: `request ${entry.id}`,
    mapping: entry.mapping,
    file: entry.file,
    input: inputOf(entry, route),
    answers,
    unanswered: [],
  });
  for (const line of eventLines(entry.events ?? [], 'the ERP')) out.line(line);
  return entry.success ? EXIT_CODES.OK : EXIT_CODES.FAILED;
}

/** Where the request's outbox events stand now: whether the receiver (the ERP, or the platform for a push) got what the caller was told succeeded. */
function eventLines(events: readonly EventState[], receiver: string): string[] {
  const c = out.colors;
  return events.flatMap((event) => {
    const tried = `${event.attempts ?? 0} attempt${event.attempts === 1 ? '' : 's'}`;
    const last = event.last ? `  last attempt: ${event.last.error}${event.last.status === undefined ? '' : ` (status ${event.last.status})`}` : '';
    const said = {
      delivered: c.green(`delivered to ${receiver} at ${event.settledAt} (${tried})`),
      pending: c.yellow(`not delivered yet: ${tried}, next at ${event.nextAttemptAt}`) + last,
      dead: c.red(`dead letter since ${event.settledAt} (${tried}): waits for support staff (adapter-engine outbox retry|drop ${event.id})`) + last,
      dropped: c.red(`dropped at ${event.settledAt}: ${event.dropReason ?? 'no reason given'}`),
      refused: c.yellow(`refused by ${receiver} on its first try at ${event.settledAt}; the caller was answered the refusal`) + last,
      gone: c.dim('no longer in the outbox: delivered and dropped events are purged after 7 days'),
    }[event.status];
    return ['', `${c.bold('now')}  event ${event.id}  ${said}`, ...(event.last?.body && (event.status === 'pending' || event.status === 'dead') ? [`    ${c.dim(event.last.body)}`] : [])];
  });
}

interface ExportOptions extends AdminOptions, JournalQuery {
  all?: boolean;
  asTest?: boolean;
  out?: string;
  mappingFile?: string;
}

/** Every request matching the filters, one journal entry (JSON) a line, oldest first: what `diff --requests` replays. */
async function exportAll(options: ExportOptions): Promise<number> {
  if (options.asTest || options.mappingFile) usageError('--all writes journal entries as JSON lines (for adapter-engine diff --requests); --as-test and --mapping-file are for one request');
  const entries = await allEntries(options, options);
  const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
  if (!options.out) {
    process.stdout.write(text);
    return EXIT_CODES.OK;
  }
  try {
    fs.writeFileSync(options.out, text);
  } catch (error) {
    usageError(`cannot write ${options.out}: ${(error as Error).message}`);
  }
  const span = entries.length === 0 ? '' : ` (${entries[0].at} to ${entries[entries.length - 1].at})`;
  out.line(`wrote ${entries.length} request${entries.length === 1 ? '' : 's'} to ${options.out}${span}`);
  return EXIT_CODES.OK;
}

async function exportRequest(id: string | undefined, options: ExportOptions): Promise<number> {
  if (options.all) {
    if (id !== undefined) usageError(`give a journal id or --all, not both`);
    return exportAll(options);
  }
  if (id === undefined) usageError('name the request to export (its journal id), or give --all for every request the filters match');
  if (!options.asTest) usageError('say what to export as: --as-test (a mapping test case), or --all for every request as JSON lines');
  const { entry, route } = await entryFor(id, options);
  // A served push's platform calls run later, in the background: the journal holds no answers to replay.
  if (!route || !entry.envelope) return usageError(`request ${id} is a push (${entry.route}); its platform calls ran after its answer, so the journal has no answers to replay: write a push case (push:, input:, the platform's answers) in the mapping's tests instead`);
  // An event stored in the outbox (one per request) is replayed with its delivery's answer.
  const event = entry.events?.[0];
  const testCase = testCaseOf({ route, input: inputOf(entry, route), steps: entry.steps, resultName: entry.result, envelope: entry.envelope, event }, `request ${entry.requestId} at ${entry.at} answered ${entry.result}${event ? `, its event ${event.status === 'pending' ? 'waiting for a retry' : event.status}` : ''}`);
  if ('problem' in testCase) usageError(`request ${id} cannot be exported: ${testCase.problem}`);
  const mappingFile = options.mappingFile ?? entry.file;
  if (!options.out) {
    out.line(withCase(undefined, testCase, `${process.cwd()}/exported.test.yaml`, mappingFile).trimEnd());
    return EXIT_CODES.OK;
  }
  let existing: string | undefined;
  try {
    existing = fs.existsSync(options.out) ? fs.readFileSync(options.out, 'utf8') : undefined;
    fs.writeFileSync(options.out, withCase(existing, testCase, options.out, mappingFile));
  } catch (error) {
    usageError(`cannot write ${options.out}: ${(error as Error).message}`);
  }
  out.line(`${existing === undefined ? 'wrote' : 'added to'} ${options.out}: case "${testCase.name}" (run it with adapter-engine test ${options.out})`);
  return EXIT_CODES.OK;
}

export function registerRequests(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  const requests = program
    .command('requests')
    .summary('what happened to the requests a server answered lately')
    .description('The request journal of a running server: the latest requests of each mapping (serve --journal-size), read from its admin listener. Each holds the request, every call to the external system with its answer (secrets masked), the outcome rules that matched and the envelope answered.\n\nWithout a subcommand it lists requests, newest first, filtered by the options.')
    .option('--admin <url>', 'the admin listener of the server (serve --admin-port), e.g. http://127.0.0.1:9090 (default: env ADMIN_URL)')
    .option('--json', 'print JSON');
  for (const [name, help] of Object.entries(JOURNAL_QUERY)) requests.option(`--${name} <value>`, help);
  requests.action((options: AdminOptions & JournalQuery) => run(list(options)));
  // --admin and --json are the parent's options wherever they are written.
  requests.command('show').description('one request, step by step, as dry-run shows it').argument('<id>', 'journal id (from the list)')
    .action((id: string, _options: unknown, command: Command) => run(show(id, command.optsWithGlobals<AdminOptions>())));
  requests.command('export').description('write one request as a mapping test case with the external system\'s recorded answers, to replay it offline with adapter-engine test; or, with --all, every request the filters of requests match, one journal entry (JSON) a line, oldest first, to replay with adapter-engine diff --requests').argument('[id]', 'journal id (from the list)')
    .option('--as-test', 'as a mapping test case')
    .option('--all', 'every request the filters match (--operation, --from, --to, ...; all pages, unless --limit), as JSON lines')
    .option('-o, --out <file>', 'test file to write or add the case to; with --all, the JSON lines file to write (default: print it)')
    .option('--mapping-file <file>', 'the mapping file the test runs (default: the file the server named)')
    .action((id: string | undefined, _options: unknown, command: Command) => run(exportRequest(id, command.optsWithGlobals<ExportOptions>())));
  for (const command of requests.commands) command.exitOverride();
}
