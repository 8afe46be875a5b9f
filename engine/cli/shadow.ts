import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EXIT_CODES } from '../errors';
import { JOURNAL_QUERY, type JournalQuery } from '../journal/query';
import { SHADOW_DIR } from '../server/mapping-source';
import type { ShadowReport } from '../shadow/report';
import { fetchAdmin, type AdminOptions } from './admin-client';
import { out, table } from './output';
import { usageError } from './usage';

/**
 * `adapter-engine shadow`: a candidate mapping beside the live one. `report` lists, from a running
 * server's admin listener, the read requests on which the candidate answered otherwise (with each field
 * that differs); `promote` puts the candidate in the live file's place and keeps the live file to roll
 * back to; `rollback` undoes it. The server serves what the files hold after a reload (SIGHUP, --watch).
 */

const PREVIOUS_DIR = 'previous';

function shown(value: unknown): string {
  const text = value === undefined ? '(none)' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

async function report(options: AdminOptions & JournalQuery): Promise<number> {
  const query = new URLSearchParams();
  for (const name of Object.keys(JOURNAL_QUERY) as (keyof JournalQuery)[]) {
    const value = options[name];
    if (value !== undefined) query.set(name, value);
  }
  const { status, body } = await fetchAdmin(options, `/shadow${query.size > 0 ? `?${query}` : ''}`);
  if (status === 400) usageError((body as { error: string }).error);
  if (status !== 200) throw new Error(`GET /shadow answered ${status}: ${JSON.stringify(body)}`);
  const shadow = body as ShadowReport;
  if (options.json) {
    out.json(shadow);
    return EXIT_CODES.OK;
  }
  const c = out.colors;
  if (shadow.candidates.length === 0) out.line(`no shadow candidates: put a new version of a served mapping in ${SHADOW_DIR}/ beside it, then reload the server (SIGHUP)`);
  for (const candidate of shadow.candidates) out.line(`candidate for ${c.bold(candidate.mapping)}: ${candidate.file}`);
  if (shadow.runs.length === 0) {
    out.line('no differences: every read request the candidates ran on was answered the same (adapter_shadow_requests_total counts them)');
    return EXIT_CODES.OK;
  }
  out.line(table([
    ['TIME', 'ID', 'MAPPING', 'OPERATION', 'OUTCOME', 'LIVE', 'CANDIDATE', 'REQUEST'].map((title) => c.bold(title)),
    ...shadow.runs.map((run) => [new Date(run.at).toISOString(), run.id, run.mapping, run.operation, run.run.outcome === 'failed' ? c.red('failed') : c.yellow('different'), run.liveResult, run.candidateResult, run.path]),
  ]).join('\n'));
  for (const run of shadow.runs) {
    out.line('');
    out.line(`${c.bold(run.id)}  live request ${run.run.live}`);
    if (run.run.reason !== undefined) out.line(`  ${c.red(run.run.reason)}`);
    for (const difference of run.run.differences) out.line(`  ${difference.path}  ${shown(difference.old)} → ${shown(difference.new)}`);
  }
  return EXIT_CODES.FAILED;
}

/** The live file, its candidate in shadow/, and where the replaced version is kept. */
function filesOf(liveFile: string): { live: string; candidate: string; previous: string } {
  const live = path.resolve(liveFile);
  const dir = path.join(path.dirname(live), SHADOW_DIR);
  return { live, candidate: path.join(dir, path.basename(live)), previous: path.join(dir, PREVIOUS_DIR, path.basename(live)) };
}

function promote(liveFile: string): number {
  const { live, candidate, previous } = filesOf(liveFile);
  if (!fs.existsSync(live)) usageError(`no mapping file ${liveFile}`);
  if (!fs.existsSync(candidate)) usageError(`no candidate for ${liveFile}: the candidate is ${path.relative(process.cwd(), candidate)}`);
  fs.mkdirSync(path.dirname(previous), { recursive: true });
  // The live version is kept before it is replaced; the rename replaces the live file in one step, so a reload never reads half a file.
  fs.copyFileSync(live, previous);
  fs.renameSync(candidate, live);
  out.line(`promoted ${path.relative(process.cwd(), candidate)} to ${liveFile}; the version it replaced is kept in ${path.relative(process.cwd(), previous)}`);
  out.line('the server serves it after its next reload (kill -HUP <pid>, or by itself with --watch); undo with adapter-engine shadow rollback ' + liveFile);
  return EXIT_CODES.OK;
}

function rollback(liveFile: string): number {
  const { live, candidate, previous } = filesOf(liveFile);
  if (!fs.existsSync(previous)) usageError(`nothing to roll back to: ${path.relative(process.cwd(), previous)} does not exist (adapter-engine shadow promote keeps it)`);
  // The promoted version becomes the candidate again, so it keeps running beside the restored one.
  if (fs.existsSync(live)) fs.renameSync(live, candidate);
  fs.renameSync(previous, live);
  out.line(`rolled ${liveFile} back to the version promote replaced; the promoted version is the candidate again (${path.relative(process.cwd(), candidate)})`);
  out.line('the server serves it after its next reload (kill -HUP <pid>, or by itself with --watch)');
  return EXIT_CODES.OK;
}

export function registerShadow(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  const shadow = program
    .command('shadow')
    .summary('a candidate mapping beside the live one: its differences, promote, roll back')
    .description(`A shadow candidate is a new version of a served mapping in ${SHADOW_DIR}/ beside it (mappings/${SHADOW_DIR}/acme.yaml for mappings/acme.yaml). The server runs it after each read request's answer on the ERP answers the live mapping got, and counts and keeps where it answers otherwise.`);
  shadow.command('report').description('the read requests on which the candidates answered otherwise, newest first, with each field that differs (exit 1 when there are any)')
    .option('--admin <url>', 'the admin listener of the server (serve --admin-port), e.g. http://127.0.0.1:9090 (default: env ADMIN_URL)')
    .option('--json', 'print JSON')
    .option('--mapping <name>', JOURNAL_QUERY.mapping)
    .option('--operation <id>', JOURNAL_QUERY.operation)
    .option('--from <time>', JOURNAL_QUERY.from)
    .option('--to <time>', JOURNAL_QUERY.to)
    .option('--limit <n>', JOURNAL_QUERY.limit)
    .action((options: AdminOptions & JournalQuery) => run(report(options)));
  shadow.command('promote').description(`serve the candidate: ${SHADOW_DIR}/<file> replaces the mapping file, whose version is kept in ${SHADOW_DIR}/${PREVIOUS_DIR}/ to roll back to`).argument('<mapping-file>', 'the served mapping file, e.g. mappings/acme.yaml')
    .action((file: string) => run(Promise.resolve(promote(file))));
  shadow.command('rollback').description(`serve the version promote replaced again; the promoted one becomes the candidate`).argument('<mapping-file>', 'the served mapping file, e.g. mappings/acme.yaml')
    .action((file: string) => run(Promise.resolve(rollback(file))));
  for (const command of shadow.commands) command.exitOverride();
}
