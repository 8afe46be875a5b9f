import { toEnvelope, type Envelope, type Outcome } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import { contractSchemas } from '../contract/schema-registry';
import { OperationFailure, type Problem } from '../errors';
import { outgoingHeaders } from '../http/client';
import { OAUTH2_TOKEN_CALL } from '../http/token-source';
import type { Mapping, Operation } from '../mapping/model';
import { failureOutcome, handleRequest } from '../pipeline/handle';
import type { TraceObserver } from '../pipeline/run-operation';
import type { AnsweringClient, AnswerSource } from './answers';
import type { Masker } from './mask';

/**
 * One operation run outside the server, exactly as the server runs it (input check, dispatch,
 * failure → result name), with every step recorded for the dry-run trace and for test expectations.
 */
export type TraceStep =
  | { step: 'request'; call: string; method: string; url: string; path: string; query: Record<string, string | string[]>; headers: Record<string, string>; body?: unknown; source: AnswerSource }
  | { step: 'response'; call: string; status: number; headers: Record<string, string>; body: unknown; bodyError?: string; durationMs: number; source: AnswerSource; attempts?: number; cached?: boolean }
  | { step: 'rule'; call: string; index: number; when: string; result: string; matched: boolean; at: string }
  | { step: 'output'; data: unknown; at?: string }
  | { step: 'check'; problems: readonly Problem[] };

export interface CaseRun {
  readonly route: RouteSpec;
  readonly mode: Operation['mode'] | 'unmapped';
  readonly steps: TraceStep[];
  readonly outcome: Outcome;
  /** Set when the outcome is a failure: the engine's own explanation (also in validationStatus). */
  readonly failure?: { kind: string; message: string };
  readonly envelope: Envelope;
  readonly resultName: string;
}

/** What the platform's HTTP framework would hand over: query and path values are always text. */
export function httpLikeInput(route: RouteSpec, input: unknown): { input: unknown; problems: Problem[] } {
  if (route.inputSource === 'none') return { input: {}, problems: [] };
  if (route.inputSource === 'body') {
    return input === undefined ? { input, problems: [{ path: 'body', message: 'the request body is empty; a JSON body is expected' }] } : { input, problems: [] };
  }
  if (input === undefined || input === null) return { input: {}, problems: [] };
  if (typeof input !== 'object' || Array.isArray(input)) return { input, problems: [{ path: route.inputSource, message: 'expected parameters as an object of name: value' }] };
  const text = (value: unknown) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value);
  return { input: Object.fromEntries(Object.entries(input).map(([name, value]) => [name, Array.isArray(value) ? value.map(text) : text(value)])), problems: [] };
}

function relativePath(url: URL, base: URL): string {
  const basePath = base.pathname.replace(/\/+$/, '');
  return url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
}

export async function runCase(mapping: Mapping, route: RouteSpec, rawInput: unknown, client: AnsweringClient, mask: Masker): Promise<CaseRun> {
  const steps: TraceStep[] = [];
  const observer: TraceObserver = {
    request(request) {
      const query: Record<string, string | string[]> = {};
      for (const name of new Set(request.url.searchParams.keys())) {
        const values = request.url.searchParams.getAll(name).map(mask.text);
        query[name] = values.length === 1 ? values[0] : values;
      }
      steps.push({
        step: 'request', call: request.callName, method: request.method, url: mask.url(request.url),
        path: mask.text(relativePath(request.url, mapping.system.baseUrl)), query,
        headers: mask.headers(outgoingHeaders(request)), body: mask.deep(request.body), source: 'live',
      });
    },
    response(call, response, info) {
      // Calls run one after another, so the answer just received is the client's latest.
      const source = client.log[client.log.length - 1]?.source ?? 'live';
      // Retries and cache hits are worth a note; a plain single attempt adds nothing to the trace.
      const extra = info && (info.attempts !== 1 || info.cached) ? { attempts: info.attempts, cached: info.cached } : {};
      steps.push({ step: 'response', call, status: response.status, headers: mask.headers(response.headers), body: mask.deep(response.body), bodyError: response.bodyError, durationMs: Math.round(response.durationMs), source, ...extra });
    },
    ruleChecked(call, index, rule, matched) {
      steps.push({ step: 'rule', call, index, when: rule.when.source, result: rule.result, matched, at: `${rule.origin.file}:${rule.origin.line}:${rule.origin.col}` });
    },
    output(data) {
      const operation = mapping.operations.get(route.operationId);
      const origin = operation?.mode === 'flow' ? operation.output?.origin : undefined;
      steps.push({ step: 'output', data: mask.deep(data), at: origin && `${origin.file}:${origin.line}:${origin.col}` });
    },
    check(problems) {
      steps.push({ step: 'check', problems });
    },
  };
  const schemas = contractSchemas();
  const prepared = {
    route,
    checkInput: route.inputSchema ? schemas.compile(route.inputSchema) : undefined,
    checkData: route.dataSchema ? schemas.compile(route.dataSchema) : undefined,
  };
  const { input, problems } = httpLikeInput(route, rawInput);
  const operation = mapping.operations.get(route.operationId);
  let outcome: Outcome;
  let failure: CaseRun['failure'];
  try {
    outcome = await handleRequest(mapping, prepared, input, problems, { http: client, observer });
  } catch (error) {
    // Anything but an OperationFailure is a fault in the engine: let it reach the bug report.
    if (!(error instanceof OperationFailure)) throw error;
    failure = { kind: error.kind, message: mask.text(error.message) };
    outcome = failureOutcome(route, error);
  }
  // Where each request's answer came from is known only once it was sent.
  // Token requests reach the client but are no step of the trace (credentials are added below it).
  const sent = client.log.filter((entry) => entry.callName !== OAUTH2_TOKEN_CALL);
  steps.filter((step) => step.step === 'request').forEach((step, index) => {
    if (step.step === 'request') step.source = sent[index]?.source ?? step.source;
  });
  const envelope = mask.deep(toEnvelope(route, outcome)) as Envelope;
  return { route, mode: operation?.mode ?? 'unmapped', steps, outcome, failure, envelope, resultName: outcome.resultName };
}
