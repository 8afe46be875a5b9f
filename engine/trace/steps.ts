import type { Problem } from '../errors';
import { outgoingHeaders } from '../http/client';
import { isSecretName, MASK, maskHeaderNames, maskUrlNames, type Masker } from '../mapping/mask';
import type { RouteSpec } from '../contract/routes';
import type { Mapping, Origin } from '../mapping/model';
import { expressionRead } from './expression-read';
import type { TraceObserver } from './observer';

/**
 * The steps of one request as `dry-run` shows them and the request journal keeps them: each ERP request
 * and answer, each outcome rule checked, the output and its contract check. The engine records them as
 * they happen, unmasked and by reference (cheap on the request path); whoever shows them masks them with
 * `maskSteps`, the one place that decides what a reader may see.
 */

/** Where an answer came from: the ERP (live), a recorded answer of a test, or a stand-in of a dry run. */
export type AnswerSource = 'live' | 'recorded' | 'not sent' | 'stand-in token' | 'missing';

export type TraceStep =
  | { step: 'request'; call: string; method: string; url: string; path: string; query: Record<string, string | string[]>; headers: Record<string, string>; body?: unknown; source: AnswerSource }
  | { step: 'response'; call: string; status: number; headers: Record<string, string>; body: unknown; bodyError?: string; durationMs: number; source: AnswerSource; attempts?: number; cached?: boolean; repeated?: readonly string[]; /** The call read XML: body is the document's text. */ xml?: true }
  /** No HTTP answer arrived (after the retries the call allows): the transport failure. */
  | { step: 'no answer'; call: string; error: string; attempts: number }
  | { step: 'rule'; call: string; index: number; when: string; result: string; matched: boolean; at: string }
  | { step: 'output'; data: unknown; at?: string }
  /**
   * A mapping expression (dry runs and the studio only): its place (`what`, as failures name it), its
   * text and file:line:col, the parts of the document it read (expression-read.ts) and what it gave
   * (`gave` absent: nothing). Both are cut when the trace is shown or kept (cappedExpression).
   */
  | { step: 'expression'; what: string; source: string; at: string; read: unknown; gave?: unknown }
  | { step: 'check'; problems: readonly Problem[] }
  | { step: 'note'; text: string }
  /** The event was stored in the outbox; the ERP gets it from there (see the journal entry's `events`). */
  | { step: 'stored'; eventId: string; orderingKey: string }
  /** Left out and answered without it, as the mapping allows: a call (onError: skip) or a record (onInvalidRecord: skip). */
  | { step: 'skipped'; label: string; message: string }
  /** delivery: outbox: what the background delivery would do with this event. */
  | { step: 'delivery'; verdict: 'delivered' | 'retry' | 'dead'; message?: string };

function relativePath(url: URL, base: URL): string {
  const basePath = base.pathname.replace(/\/+$/, '');
  return url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
}

/** Where a contract route's output expression is written, for its output step. */
export function outputOrigin(mapping: Mapping, route: RouteSpec): Origin | undefined {
  const operation = mapping.operations.get(route.operationId);
  return operation?.mode === 'flow' ? operation.output?.origin : undefined;
}

/** A run records at most this many expressions (a fan-out over a long list evaluates its templates per element). */
const EXPRESSION_STEPS_LIMIT = 200;

/** Each expression as a step, up to EXPRESSION_STEPS_LIMIT, then one note that the rest are not shown. */
function expressionRecorder(steps: TraceStep[]): TraceObserver['expression'] {
  let recorded = 0;
  return (what, expression, context, value) => {
    recorded += 1;
    if (recorded > EXPRESSION_STEPS_LIMIT) {
      if (recorded === EXPRESSION_STEPS_LIMIT + 1) steps.push({ step: 'note', text: `expressions after the first ${EXPRESSION_STEPS_LIMIT} of this request are not shown` });
      return;
    }
    const { origin } = expression;
    steps.push({ step: 'expression', what, source: expression.source, at: `${origin.file}:${origin.line}:${origin.col}`, read: expressionRead(expression.source, context), ...(value === undefined ? {} : { gave: value }) });
  };
}

/**
 * An observer that appends each step to `steps`, keeping references to what the pipeline made (no
 * copies). `base`: the URL call paths are shown under (the ERP's; the platform's for a push).
 * `expressions`: record each mapping expression too (RunOptions.expressions).
 */
export function traceRecorder(base: URL, output: Origin | undefined, steps: TraceStep[], expressions = false): TraceObserver {
  return {
    expression: expressions ? expressionRecorder(steps) : undefined,
    request(request) {
      const query: Record<string, string | string[]> = {};
      for (const name of new Set(request.url.searchParams.keys())) {
        const values = request.url.searchParams.getAll(name);
        query[name] = values.length === 1 ? values[0] : values;
      }
      steps.push({
        step: 'request', call: request.callName, method: request.method, url: request.url.href,
        path: relativePath(request.url, base), query, headers: outgoingHeaders(request), body: request.body, source: 'live',
      });
    },
    attempt(label, report) {
      // What the credentials' header said, its signature left out: each attempt is signed anew.
      if (report.signed !== undefined) steps.push({ step: 'note', text: `calls.${label}: attempt ${report.attempt} signed with Authorization: ${report.signed}, oauth_signature not shown` });
      // The last attempt without an answer is the call's transport failure; earlier ones were retried.
      if (report.error !== undefined && report.retryInMs === undefined) steps.push({ step: 'no answer', call: label, error: report.error, attempts: report.attempt });
    },
    response(call, response, info) {
      // Retries and cache hits are worth a note; a plain single attempt adds nothing to the trace.
      const extra = info && (info.attempts !== 1 || info.cached) ? { attempts: info.attempts, cached: info.cached } : {};
      // An XML answer's elements that repeated without being declared in lists: (mapping tests warn).
      const repeated = info?.repeated?.length ? { repeated: info.repeated } : {};
      // An XML answer is kept as its text; `record` writes it back as xml:.
      const xml = info?.xml ? { xml: true as const } : {};
      steps.push({ step: 'response', call, status: response.status, headers: response.headers, body: response.body, bodyError: response.bodyError, durationMs: Math.round(response.durationMs), source: 'live', ...extra, ...repeated, ...xml });
    },
    ruleChecked(call, index, rule, matched) {
      steps.push({ step: 'rule', call, index, when: rule.when.source, result: rule.result, matched, at: `${rule.origin.file}:${rule.origin.line}:${rule.origin.col}` });
    },
    output(data) {
      steps.push({ step: 'output', data, at: output && `${output.file}:${output.line}:${output.col}` });
    },
    check(problems) {
      steps.push({ step: 'check', problems });
    },
    note(text) {
      steps.push({ step: 'note', text });
    },
    stored(eventId, orderingKey) {
      steps.push({ step: 'stored', eventId, orderingKey });
    },
    skipped(label, message) {
      steps.push({ step: 'skipped', label, message });
    },
  };
}

/**
 * The steps with what is masked by its name masked: headers and query parameters named like a
 * credential, and a password in a URL. The mapping's secret values are left to the reader's masker
 * (the journal masks them in its JSON text). Steps without such names are kept as they are.
 */
export function maskStepNames(steps: readonly TraceStep[]): TraceStep[] {
  return steps.map((step): TraceStep => {
    if (step.step === 'response') return { ...step, headers: maskHeaderNames(step.headers) };
    if (step.step !== 'request') return step;
    const named = Object.keys(step.query).some(isSecretName);
    const url = named || step.url.includes('@') ? maskUrlNames(new URL(step.url)) : step.url;
    const query = named ? Object.fromEntries(Object.entries(step.query).map(([name, value]) => [name, isSecretName(name) ? MASK : value])) : step.query;
    return { ...step, url, query, headers: maskHeaderNames(step.headers) };
  });
}

/** The steps as a reader may see them: credentials and the mapping's secret values masked. */
export function maskSteps(steps: readonly TraceStep[], mask: Masker): TraceStep[] {
  return steps.map((step): TraceStep => {
    switch (step.step) {
      case 'request': {
        const query = Object.fromEntries(Object.entries(step.query).map(([name, value]) => [name, Array.isArray(value) ? value.map(mask.text) : mask.text(value as string)]));
        return { ...step, url: mask.url(new URL(step.url)), path: mask.text(step.path), query, headers: mask.headers(step.headers), body: mask.deep(step.body) };
      }
      case 'response':
        return { ...step, headers: mask.headers(step.headers), body: mask.deep(step.body), ...(step.bodyError === undefined ? {} : { bodyError: mask.text(step.bodyError) }) };
      case 'output':
        return { ...step, data: mask.deep(step.data) };
      case 'expression':
        return { ...step, read: mask.deep(step.read), ...('gave' in step ? { gave: mask.deep(step.gave) } : {}) };
      case 'check':
        return { ...step, problems: step.problems.map((problem) => ({ ...problem, message: mask.text(problem.message) })) };
      case 'note':
        return { ...step, text: mask.text(step.text) };
      case 'skipped':
        return { ...step, message: mask.text(step.message) };
      case 'stored':
        return { ...step, orderingKey: mask.text(step.orderingKey) };
      case 'delivery':
        return step.message === undefined ? step : { ...step, message: mask.text(step.message) };
      default:
        return step;
    }
  });
}
