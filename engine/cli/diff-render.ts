import type { CallChange, FieldChange, Replayed, Verdict } from '../testing/replay';
import type { LeftOut } from '../testing/replay-sources';
import { out, table, type Colors } from './output';

/** What `diff` prints: a table per operation, then each changed answer with its fields and calls. */

const VERDICTS: readonly Verdict[] = ['same', 'different', 'newly failing', 'newly succeeding', 'unrecorded'];

type Counts = Record<Verdict, number> & { requests: number };

export interface DiffReport {
  readonly operations: Readonly<Record<string, Counts>>;
  readonly totals: Counts;
  /** Requests whose answer or calls changed, or that could not be replayed fully (unrecorded). */
  readonly changed: number;
}

function emptyCounts(): Counts {
  return { requests: 0, same: 0, different: 0, 'newly failing': 0, 'newly succeeding': 0, unrecorded: 0 };
}

export function summarise(replayed: readonly Replayed[]): DiffReport {
  const operations: Record<string, Counts> = {};
  const totals = emptyCounts();
  for (const one of replayed) {
    const counts = (operations[one.operation] ??= emptyCounts());
    for (const tally of [counts, totals]) {
      tally.requests += 1;
      tally[one.verdict] += 1;
    }
  }
  return { operations, totals, changed: totals.requests - totals.same };
}

/** A value on one line; a long one (a whole list that appeared) cut, as --json has it whole. */
function value(item: unknown, most = 160): string {
  if (item === undefined) return '(none)';
  const text = JSON.stringify(item);
  return text.length > most ? `${text.slice(0, most)}… (${text.length} characters; --json has it whole)` : text;
}

function fieldLine(change: FieldChange, c: Colors): string {
  return `${change.path}: ${c.red(value(change.old))} → ${c.green(value(change.new))}`;
}

/** `call` is what a call is named as: an ERP call, or a push's platform call (one set per event it stores). */
function callLines(change: CallChange, c: Colors, call: string): string[] {
  switch (change.change) {
    case 'new call': return [`${call} ${change.call}: ${c.green(`new call ${change.request}`)}`];
    case 'dropped call': return [`${call} ${change.call}: ${c.red(`no longer made: ${change.request}`)}`];
    case 'request line': return [`${call} ${change.call}: ${c.red(change.old)} → ${c.green(change.new)}`];
    case 'body': return change.fields.map((field) => `${call} ${change.call} body ${fieldLine(field, c)}`);
  }
}

function detailLines(one: Replayed, c: Colors): string[] {
  const unrecorded = [...one.old.unrecorded.map((call) => ['old', call]), ...one.new.unrecorded.map((call) => ['new', call])];
  if (unrecorded.length > 0) {
    return unrecorded.map(([side, call]) => `the ${side} mapping calls ${c.yellow(call)}, which has no recorded answer: not replayed further (never guessed)`);
  }
  const results = one.old.result === one.new.result ? [] : [`result: ${c.red(one.old.result)} → ${c.green(one.new.result)}`];
  // The result line says it: the envelope's result number, or a push's HTTP status.
  const push = one.operation.startsWith('push/');
  const said = push ? '$.status' : '$.result';
  return [...results, ...one.fields.filter((field) => field.path !== said).map((field) => fieldLine(field, c)), ...one.calls.flatMap((call) => callLines(call, c, push ? 'platform call' : 'call'))];
}

/** What was not replayed, one line per reason: how many, and where (the first few). */
function leftOutLines(leftOut: readonly LeftOut[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const left of leftOut) byReason.set(left.reason, [...(byReason.get(left.reason) ?? []), left.source]);
  return [...byReason].map(([reason, sources]) => {
    const shown = sources.slice(0, 3).join(', ') + (sources.length > 3 ? `, and ${sources.length - 3} more` : '');
    return `left out: ${sources.length} × ${reason}: ${shown}`;
  });
}

export function renderDiff(header: { old: string; new: string; mapping: string; from: string }, replayed: readonly Replayed[], report: DiffReport, leftOut: readonly LeftOut[]): void {
  const c = out.colors;
  out.line(`replayed ${replayed.length} request${replayed.length === 1 ? '' : 's'} of mapping "${header.mapping}" from ${header.from} through ${header.old} and ${header.new}; nothing was sent`);
  out.line('');
  const titles = ['OPERATION', 'REQUESTS', 'SAME', 'DIFFERENT', 'NEWLY FAILING', 'NEWLY SUCCEEDING', 'UNRECORDED'];
  const row = (name: string, counts: Counts) => [name, String(counts.requests), ...VERDICTS.map((verdict) => (counts[verdict] > 0 && verdict !== 'same' ? c.yellow(String(counts[verdict])) : String(counts[verdict])))];
  out.line(table([titles.map((title) => c.bold(title)), ...Object.entries(report.operations).sort(([a], [b]) => Number(a.startsWith('push/')) - Number(b.startsWith('push/')) || a.localeCompare(b)).map(([name, counts]) => row(name, counts))]).join('\n'));
  for (const one of replayed) {
    if (one.verdict === 'same') continue;
    out.line('');
    out.line(`${c.bold(one.verdict)}  ${one.operation}  ${one.request}  ${c.dim(`(${one.source}${one.at ? `, ${one.at}` : ''})`)}`);
    for (const line of detailLines(one, c)) out.line(`    ${line}`);
  }
  if (leftOut.length > 0) out.line(['', ...leftOutLines(leftOut)].map((line) => c.dim(line)).join('\n'));
  out.line('');
  const { totals } = report;
  const parts = VERDICTS.filter((verdict) => verdict !== 'same').map((verdict) => `${totals[verdict]} ${verdict}`);
  out.line(report.changed === 0
    ? c.green(`same  all ${totals.requests} answers are the same`)
    : `${c.red('changed')}  ${report.changed} of ${totals.requests} answers: ${parts.join(', ')}`);
}
