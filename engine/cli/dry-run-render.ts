import type { CaseRun, PushRun, TraceStep } from '../testing/run-case';
import type { DeliveryVerdict } from '../trace/steps';
import { out, prettyJson, type Colors } from './output';

/** The dry-run trace for people: each step in the order it happened, then the envelope. */

const INDENT = '    ';

function headerLines(headers: Record<string, string>, c: Colors): string[] {
  return Object.entries(headers).map(([name, value]) => `${INDENT}${c.dim(`${name}: ${value}`)}`);
}

/** An expression's value on one line, cut at 100 characters: the full value is in --json and the studio. */
function oneLine(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

function sourceNote(step: Extract<TraceStep, { step: 'request' }>, c: Colors): string {
  switch (step.source) {
    case 'live': return c.magenta('(sent)');
    case 'recorded': return c.cyan('(recorded answer, not sent)');
    case 'not sent': return c.yellow('(not sent: event routes go out only with --live)');
    case 'write not sent': return c.yellow(`(not sent: a ${step.method} can change the ERP; dry-run sends it only with --live, or mark a read safe: true)`);
    case 'stand-in token': return c.cyan('(OAuth2 token: stand-in, not sent)');
    case 'missing': return c.red('(no recorded answer)');
  }
}

/** Whether a call of the run was not sent (a synthetic answer stood in): its delivery only says what would happen. */
const notAllSent = (steps: readonly TraceStep[]) => steps.some((step) => step.step === 'request' && (step.source === 'not sent' || step.source === 'write not sent'));

/** What the delivery did; "would be" when no call of it reached the receiver (a synthetic answer stood in). */
function deliverySaid(verdict: DeliveryVerdict, sentNothing: boolean, c: Colors): string {
  const would = sentNothing ? 'would be ' : '';
  switch (verdict) {
    case 'delivered': return c.green(`${would}delivered`);
    case 'retry': return c.yellow(`${sentNothing ? 'would be retried: the receiver could not take it now' : 'the receiver could not take it now: retried'} with backoff until outbox.maxAgeMs`);
    case 'dead': return c.red(`${sentNothing ? 'would be a dead letter' : 'dead letter'}: not retried; it waits for support staff (adapter-engine outbox)`);
    case 'refused': return c.red(`${would}refused on its first try (outbox.tryFirstMs): the platform is answered the refusal; not a dead letter`);
  }
}

function stepLines(step: TraceStep, c: Colors, number: () => number, sentNothing: boolean): string[] {
  switch (step.step) {
    case 'request':
      return [
        '',
        `${c.bold(`${number()}. call ${step.call}`)}  ${sourceNote(step, c)}`,
        `  ${c.bold('→')} ${step.method} ${step.url}`,
        ...headerLines(step.headers, c),
        ...(step.body === undefined ? [] : [prettyJson(step.body, INDENT)]),
      ];
    case 'response': {
      const status = step.status >= 400 ? c.red(String(step.status)) : c.green(String(step.status));
      const note = step.source === 'not sent' || step.source === 'write not sent' ? c.yellow('synthetic answer: nothing was sent')
        : step.cached ? 'from the answer cache (call.cache), nothing was sent'
        : `${step.durationMs} ms${step.attempts !== undefined && step.attempts > 1 ? `, ${step.attempts} attempts (retry)` : ''}`;
      return [
        `  ${c.bold('←')} ${status}  ${c.dim(note)}`,
        ...headerLines(step.headers, c),
        ...(step.bodyError ? [`${INDENT}${c.red(`unreadable body: ${step.bodyError}`)}`] : [prettyJson(step.body, INDENT)]),
      ];
    }
    case 'no answer':
      return [`  ${c.bold('←')} ${c.red(`no answer: ${step.error}`)}  ${c.dim(`${step.attempts} attempt${step.attempts === 1 ? '' : 's'}`)}`];
    case 'rule': {
      const verdict = step.matched ? c.green('matched') : c.dim('no');
      return [`  rule ${step.index + 1}  ${step.when}  → ${step.result}  ${verdict}  ${c.dim(step.at)}`];
    }
    case 'expression':
      return [`  ${c.bold('=')} ${step.what}  ${c.cyan(step.source.replace(/\s+/g, ' '))}  → ${oneLine(step.gave)}  ${c.dim(step.at)}`];
    case 'output':
      return ['', `${c.bold('output')}  ${c.dim(step.at ?? '')}`, prettyJson(step.data, INDENT)];
    case 'check':
      return step.problems.length === 0
        ? ['', `${c.bold('schema check')}  ${c.green('passed')}`]
        : ['', `${c.bold('schema check')}  ${c.red(`${step.problems.length} problem(s)`)}`, ...step.problems.map((p) => `${INDENT}${p.path}  ${p.message}`)];
    case 'note':
      return ['', `${c.bold('outbox')}  ${step.text}`];
    case 'stored':
      return ['', `${c.bold('outbox')}  stored as event ${step.eventId} ${c.dim(`(ordering key ${step.orderingKey}; adapter-engine outbox show ${step.eventId})`)}`];
    case 'skipped':
      return ['', `${c.bold('skipped')}  ${c.yellow(step.label)}  ${step.message}`];
    case 'delivery':
      return ['', `${c.bold('delivery')}  ${deliverySaid(step.verdict, sentNothing, c)}${step.message ? `  ${step.message}` : ''}`];
  }
}

const MODE_NOTES: Record<CaseRun['mode'], string> = {
  flow: '',
  static: 'static answer written in the mapping; nothing is called',
  acknowledge: 'acknowledge: true; the event is answered without forwarding anything',
  file: 'the file is decoded and parsed by the engine itself (file: block); nothing is sent to the external system',
  unmapped: 'the mapping does not map this route',
};

export function renderDryRun(run: Pick<CaseRun, 'route' | 'mode' | 'steps' | 'failure' | 'envelope' | 'resultName'>, header: { mapping: string; file: string; input: unknown; answers: string; unanswered: readonly string[]; answersFile?: string; title?: string }): void {
  const c = out.colors;
  const { route } = run;
  out.line(`${c.bold(header.title ?? 'dry run')}  ${route.operationId}  ${c.dim(`${route.method} ${route.path}`)}  mapping ${header.mapping} ${c.dim(`(${header.file})`)}`);
  out.line(`${c.bold('answers')}  ${header.answers}`);
  if (run.mode !== 'flow') out.line(`${c.bold('mode')}     ${MODE_NOTES[run.mode]}`);
  out.line('');
  out.line(c.bold('input'));
  out.line(prettyJson(header.input, INDENT));
  let count = 0;
  const sentNothing = notAllSent(run.steps);
  for (const step of run.steps) for (const line of stepLines(step, c, () => ++count, sentNothing)) out.line(line);
  if (run.failure) {
    out.line('');
    out.line(`${c.bold('failure')}  ${c.red(run.failure.kind)}  ${run.failure.message}`);
  }
  for (const call of header.unanswered) {
    out.line(`${c.red('missing')}  no recorded answer for call ${call}${header.answersFile ? ` in ${header.answersFile}` : ''}; add one to run this call`);
  }
  out.line('');
  out.line(c.bold('envelope'));
  const resultTag = `${run.resultName}${run.envelope.isResultSuccess ? '' : ' (failure)'}`;
  const envelope = prettyJson(run.envelope, INDENT)
    .split('\n')
    .map((line) => (/^\s*"result": \d+,?$/.test(line) ? `${line}  ${run.envelope.isResultSuccess ? c.green(`← ${resultTag}`) : c.red(`← ${resultTag}`)}` : line))
    .join('\n');
  out.line(envelope);
}

/** The dry-run trace of a push: the platform calls its events make, then the answer the ERP gets. */
export function renderPushRun(run: Pick<PushRun, 'push' | 'steps' | 'status' | 'body'>, header: { mapping: string; file: string; input: unknown; answers: string; title?: string; auth?: string }): void {
  const c = out.colors;
  out.line(`${c.bold(header.title ?? 'dry run')}  push ${run.push}  ${c.dim(`POST /push/${run.push}`)}  mapping ${header.mapping} ${c.dim(`(${header.file})`)}`);
  out.line(`${c.bold('answers')}  ${header.answers}`);
  out.line(`${c.bold('auth')}     ${header.auth ?? 'not checked: a dry run acts for whoever holds the mapping file'}`);
  out.line('');
  out.line(c.bold('input'));
  out.line(prettyJson(header.input, INDENT));
  let count = 0;
  const sentNothing = notAllSent(run.steps);
  for (const step of run.steps) for (const line of stepLines(step, c, () => ++count, sentNothing)) out.line(line);
  out.line('');
  const status = run.status === 202 ? c.green(String(run.status)) : c.red(String(run.status));
  out.line(`${c.bold('answer to the ERP')}  ${status}`);
  out.line(prettyJson(run.body, INDENT));
}
