import { toEnvelope, type Envelope, type Outcome } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import type { SchemaRegistry } from '../contract/schema-registry';
import { failureOutcome } from '../engine/dispatch';
import { createEngine, type Engine } from '../engine/engine';
import { requestFor } from '../engine/request';
import { OperationFailure, type Problem } from '../errors';
import { outgoingHeaders } from '../http/client';
import { CSRF_TOKEN_CALL } from '../http/csrf';
import { OAUTH2_TOKEN_CALL } from '../http/token-source';
import type { Logger } from '../log';
import type { Mapping, Operation } from '../mapping/model';
import type { TraceObserver } from '../pipeline/run-operation';
import type { AnsweringClient, AnswerSource } from './answers';
import type { Masker } from './mask';

/**
 * One operation run outside the server, through the same Engine.handle the server calls (the input
 * becomes the request the platform would send: routing, input reading, dispatch, failure → result name
 * all the server's), with every step recorded for the dry-run trace and for test expectations.
 */
export type TraceStep =
  | { step: 'request'; call: string; method: string; url: string; path: string; query: Record<string, string | string[]>; headers: Record<string, string>; body?: unknown; source: AnswerSource }
  | { step: 'response'; call: string; status: number; headers: Record<string, string>; body: unknown; bodyError?: string; durationMs: number; source: AnswerSource; attempts?: number; cached?: boolean }
  | { step: 'rule'; call: string; index: number; when: string; result: string; matched: boolean; at: string }
  | { step: 'output'; data: unknown; at?: string }
  | { step: 'check'; problems: readonly Problem[] }
  | { step: 'note'; text: string }
  /** delivery: outbox: what the background delivery would do with this event. */
  | { step: 'delivery'; verdict: 'delivered' | 'retry' | 'dead'; message?: string };

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

function relativePath(url: URL, base: URL): string {
  const basePath = base.pathname.replace(/\/+$/, '');
  return url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
}

export interface CaseOptions {
  /** Shared by the cases of one test file, so the contract's validators compile once. */
  readonly schemas?: SchemaRegistry;
  readonly log?: Logger;
  /** Run on this engine (its caches and tokens carry over between runs) instead of a fresh one. */
  readonly engine?: Engine;
}

export async function runCase(mapping: Mapping, route: RouteSpec, rawInput: unknown, client: AnsweringClient, mask: Masker, options: CaseOptions = {}): Promise<CaseRun> {
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
    note(text) {
      steps.push({ step: 'note', text });
    },
  };
  const operation = mapping.operations.get(route.operationId);
  let outcome: Outcome;
  let failure: CaseRun['failure'];
  const request = requestFor(route, rawInput);
  if ('problem' in request) {
    // No HTTP request can carry this input (a list where parameters go): what the server would never see.
    const error = new OperationFailure('INPUT_INVALID', `the request does not match the contract: ${request.problem.path} ${request.problem.message}`, [request.problem]);
    failure = { kind: error.kind, message: mask.text(error.message) };
    outcome = failureOutcome(route, error);
  } else {
    const engine = options.engine ?? createEngine({ mappings: [mapping], http: client, schemas: options.schemas, log: options.log, checkInboundAuth: false, outbox: 'inline' });
    let answer;
    try {
      answer = await engine.handle(request, { observer });
    } finally {
      if (!options.engine) await engine.close();
    }
    // A fault inside the engine is a bug: let it reach the CLI's bug report rather than pass as a result.
    if (answer.fault !== undefined) throw answer.fault;
    if (!answer.outcome) throw new Error(`the engine did not route ${request.method} ${request.path} to ${route.operationId}: ${JSON.stringify(answer.body)}`);
    outcome = answer.outcome;
    if (answer.failure) failure = { kind: answer.failure.kind, message: mask.text(answer.failure.message) };
    if (answer.delivery) steps.push({ step: 'delivery', verdict: answer.delivery.verdict, message: answer.delivery.message && mask.text(answer.delivery.message) });
  }
  // Where each request's answer came from is known only once it was sent.
  // Token requests (OAuth2, CSRF) reach the client but are no step of the trace (credentials are added below it).
  const sent = client.log.filter((entry) => entry.callName !== OAUTH2_TOKEN_CALL && entry.callName !== CSRF_TOKEN_CALL);
  steps.filter((step) => step.step === 'request').forEach((step, index) => {
    if (step.step === 'request') step.source = sent[index]?.source ?? step.source;
  });
  const envelope = mask.deep(toEnvelope(route, outcome)) as Envelope;
  return { route, mode: operation?.mode ?? 'unmapped', steps, outcome, failure, envelope, resultName: outcome.resultName };
}
