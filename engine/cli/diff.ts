import fs from 'node:fs';
import type { Command } from 'commander';
import { createSchemaRegistry } from '../contract/schema-registry';
import { findRoute } from '../contract/routes';
import { EXIT_CODES, type MappingIssue } from '../errors';
import type { JournalEntry } from '../journal/journal-entry';
import type { Mapping } from '../mapping/model';
import { displayName } from '../mapping/yaml-file';
import { replay, type Replayed } from '../testing/replay';
import { casesFromEntries, casesFromTestFile, type LeftOut } from '../testing/replay-sources';
import type { AdminOptions } from './admin-client';
import { renderDiff, summarise } from './diff-render';
import { allEntries } from './journal-read';
import { loadForReplay } from './mapping-file';
import { unsetNote, unsetVariables } from './unset-note';
import { err, issueLine, out } from './output';
import { collectEnv, usageError } from './usage';
import type { ReplayCase } from '../testing/replay';
import { replayPush, type PushReplayCase } from '../testing/replay-push';

/**
 * `adapter-engine diff <old> <new>`: which answers a mapping change alters, before it goes live. Recorded
 * requests (a `requests export --all` file, a running server's journal, or the mapping's test files) are
 * replayed through both mappings on the ERP answers recorded with them; nothing is sent to the ERP.
 */
interface DiffOptions extends AdminOptions {
  requests?: string[];
  from?: string;
  to?: string;
  operation?: string;
  env?: Record<string, string>;
}

/** The journal entries of a `requests export --all` file: one JSON object a line. */
function readEntries(file: string): JournalEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return usageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return text.split('\n').flatMap((line, index) => {
    if (line.trim() === '') return [];
    try {
      const entry = JSON.parse(line) as JournalEntry;
      if (typeof entry?.operation === 'string' && typeof entry.id === 'string' && Array.isArray(entry.steps)) return [entry];
    } catch {
      // reported below, as a line that is no journal entry
    }
    return usageError(`${file}:${index + 1} is not a journal entry (a line written by adapter-engine requests export --all)`);
  });
}

function timeOf(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) usageError(`--${name} must be a time in ISO 8601 (2026-11-23T10:30:00Z), got "${text}"`);
  return at;
}

interface Gathered {
  readonly from: string;
  readonly cases: (ReplayCase | PushReplayCase)[];
  readonly leftOut: LeftOut[];
  readonly env: Readonly<Record<string, string>>;
}

/** The journal entries of the old mapping within the time range; entries of other mappings are counted, not replayed. */
function fromEntries(entries: readonly JournalEntry[], mappingName: string, options: DiffOptions, from: string): Gathered {
  const [start, end] = [timeOf(options.from, 'from'), timeOf(options.to, 'to')];
  const inRange = entries.filter((entry) => (start === undefined || Date.parse(entry.at) >= start) && (end === undefined || Date.parse(entry.at) <= end));
  const mine = inRange.filter((entry) => entry.mapping === mappingName);
  const { cases, leftOut } = casesFromEntries(mine);
  for (const entry of inRange) if (entry.mapping !== mappingName) leftOut.push({ source: `request ${entry.id}`, reason: `a request of another mapping than "${mappingName}"` });
  return { from, cases, leftOut, env: {} };
}

function fromTestFiles(files: readonly string[]): Gathered {
  const gathered = files.map((file) => {
    const read = casesFromTestFile(file);
    if (read.issues.length > 0) {
      for (const issue of read.issues) err.line(issueLine(issue, err.colors));
      usageError(`${displayName(file)} is not a test file that can be replayed`);
    }
    return read;
  });
  return {
    from: files.map(displayName).join(', '),
    cases: gathered.flatMap((read) => read.cases),
    leftOut: gathered.flatMap((read) => read.leftOut),
    env: Object.assign({}, ...gathered.map((read) => read.env)) as Record<string, string>,
  };
}

/**
 * The requests to replay: --admin, --requests, or the test file beside the old mapping. `nameOf` loads
 * the old mapping (with the test files' env) for its name, which chooses its requests in a journal.
 */
async function gather(oldFile: string, nameOf: (env: Readonly<Record<string, string>>) => string, options: DiffOptions): Promise<Gathered> {
  if (options.admin !== undefined && options.requests !== undefined) usageError('replay requests from one source: --admin or --requests');
  if (options.admin !== undefined) {
    const mappingName = nameOf({});
    const entries = await allEntries(options, { mapping: mappingName, from: options.from, to: options.to, operation: options.operation });
    return fromEntries(entries, mappingName, options, `the journal at ${options.admin}`);
  }
  const files = options.requests ?? [oldFile.replace(/\.(ya?ml)$/, '.test.$1')];
  if (options.requests === undefined && !fs.existsSync(files[0])) usageError(`no requests to replay: give --requests <file> (adapter-engine requests export --all) or --admin <url>, or write the mapping's tests in ${displayName(files[0])}`);
  const tests = files.filter((file) => /\.ya?ml$/.test(file));
  const journals = files.filter((file) => !/\.ya?ml$/.test(file));
  if (tests.length > 0 && (options.from !== undefined || options.to !== undefined)) usageError('--from and --to choose journal requests by time; test cases have none');
  const parts = tests.length > 0 ? [fromTestFiles(tests)] : [];
  const testEnv = parts[0]?.env ?? {};
  parts.push(...journals.map((file) => fromEntries(readEntries(file), nameOf(testEnv), options, displayName(file))));
  return {
    from: parts.map((part) => part.from).join(', '),
    cases: parts.flatMap((part) => part.cases),
    leftOut: parts.flatMap((part) => part.leftOut),
    env: Object.assign({}, ...parts.map((part) => part.env)) as Record<string, string>,
  };
}

/** Nothing is sent: the ERP's URL and secrets may be unset; they are gathered in `unset`, to be said once. */
function load(file: string, env: NodeJS.ProcessEnv, unset: MappingIssue[]): Mapping {
  const { mapping, unset: found } = loadForReplay(file, env);
  if (!mapping) usageError(`${displayName(file)} does not load; nothing was compared`);
  unset.push(...found);
  return mapping;
}

/** What --operation names a request by: the contract operation, or push/<name> for a push. */
function operationOf(one: ReplayCase | PushReplayCase): string {
  return 'push' in one ? `push/${one.push}` : one.route.operationId;
}

async function runDiff(oldFile: string, newFile: string, options: DiffOptions): Promise<number> {
  if (options.operation !== undefined && !findRoute(options.operation) && !/^push\/[^/]+$/.test(options.operation)) usageError(`"${options.operation}" is not a contract operation (e.g. GetWorkOrderByCode) or a push (push/<name>)`);
  // Loaded once: the first use decides its variables (the test files' env, then --env).
  let loaded: Mapping | undefined;
  const unset: MappingIssue[] = [];
  const oldOf = (env: Readonly<Record<string, string>>) => (loaded ??= load(oldFile, { ...process.env, ...env, ...options.env }, unset));
  const gathered = await gather(oldFile, (env) => oldOf(env).name, options);
  const oldMapping = oldOf(gathered.env);
  const newMapping = load(newFile, { ...process.env, ...gathered.env, ...options.env }, unset);
  const cases = gathered.cases.filter((one) => options.operation === undefined || operationOf(one) === options.operation);
  if (cases.length === 0) usageError(`no requests to replay from ${gathered.from}${options.operation ? ` for ${options.operation}` : ''}${gathered.leftOut.length > 0 ? ` (left out: ${[...new Set(gathered.leftOut.map((left) => left.reason))].join('; ')})` : ''}`);
  const schemas = createSchemaRegistry();
  const replayed: Replayed[] = [];
  for (const one of cases) replayed.push(await ('push' in one ? replayPush(oldMapping, newMapping, one, schemas) : replay(oldMapping, newMapping, one, schemas)));
  const report = summarise(replayed);
  const header = { old: displayName(oldFile), new: displayName(newFile), mapping: oldMapping.name, from: gathered.from };
  if (options.json) out.json({ ...header, replayed: replayed.length, ...report, changes: replayed.filter((one) => one.verdict !== 'same'), leftOut: gathered.leftOut });
  else renderDiff(header, replayed, report, gathered.leftOut);
  // Said once for both versions, and only when some answer changed (a stand-in may be why).
  const note = report.changed > 0 && !options.json ? unsetNote(unsetVariables(unset)) : undefined;
  if (note) out.line(out.colors.dim(note));
  return report.changed === 0 ? EXIT_CODES.OK : EXIT_CODES.FAILED;
}

export function registerDiff(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('diff')
    .summary('which answers a mapping change alters, on recorded requests')
    .description('Replay recorded requests through two versions of a mapping, each on the external system\'s answers recorded with the request, and report per operation how many answers are the same, different, newly failing or newly succeeding, with the fields that changed (old → new) and the calls to the external system that changed. Pushes (POST /push/<name>) are replayed too: the answer the ERP gets and the platform calls of the events they store. Nothing is sent or stored. A call the new mapping makes without a recorded answer is reported as unrecorded, never guessed.\n\nRequests come from --requests (a file of adapter-engine requests export --all, or mapping test files), from a running server\'s journal (--admin), or by default from the test file beside the old mapping.\nExit code 0 when every answer is the same, 1 when some differ, 2 for errors (a mapping that does not load, nothing to replay).')
    .argument('<old>', 'the mapping as it is (YAML)')
    .argument('<new>', 'the changed mapping (YAML)')
    .option('-r, --requests <files...>', 'journal exports (.jsonl, from adapter-engine requests export --all) or mapping test files (.test.yaml)')
    .option('--admin <url>', 'replay the journal of a running server, read from its admin listener (token from ADMIN_TOKEN)')
    .option('--from <time>', 'only requests at or after this time (ISO 8601)')
    .option('--to <time>', 'only requests at or before this time (ISO 8601)')
    .option('--operation <id>', 'only requests of this operation, e.g. GetWorkOrderByCode, or of this push, e.g. push/NewOrder')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mappings (repeatable)', collectEnv)
    .option('--json', 'print the report as one JSON document')
    .action((oldFile: string, newFile: string, options: DiffOptions) => run(runDiff(oldFile, newFile, options)));
}
