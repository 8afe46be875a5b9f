import { toEnvelope, type Envelope, type Outcome } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import type { SchemaRegistry } from '../contract/schema-registry';
import { failureOutcome } from '../core/dispatch';
import { createEngine, type Engine } from '../core/engine';
import type { EngineAnswer } from '../core/stage';
import { requestFor } from '../core/request';
import { OperationFailure, type Problem } from '../errors';
import { CSRF_TOKEN_CALL } from '../http/csrf';
import { OAUTH2_TOKEN_CALL } from '../http/token-source';
import type { Logger } from '../log';
import type { Mapping, Operation } from '../mapping/model';
import { cappedExpressions, type JournalEntry } from '../journal/journal-entry';
import { maskSteps, type TraceStep } from '../trace/steps';
import { createMasker, declaredSecretNames, type Masker } from '../mapping/mask';
import type { AnsweringClient } from './answers';

/**
 * One operation run outside the server, through the same Engine.handle the server calls (the input
 * becomes the request the platform would send: routing, input reading, dispatch, failure → result name
 * all the server's), with every step the engine traced, masked for the reader.
 */
export type { TraceStep } from '../trace/steps';

export interface CaseRun {
  readonly route: RouteSpec;
  readonly mode: Operation['mode'] | 'unmapped';
  readonly steps: TraceStep[];
  readonly outcome: Outcome;
  /** Set when the outcome is a failure: the engine's own explanation (also in validationStatus). */
  readonly failure?: { kind: string; message: string; problems?: readonly Problem[] };
  readonly envelope: Envelope;
  readonly resultName: string;
  /** The input the case ran with (masked by the caller when shown). */
  readonly input: unknown;
  /** The engine journal's entry of the run (unmasked). */
  readonly entry?: JournalEntry;
}

export interface CaseOptions {
  /** Shared by the cases of one test file, so the contract's validators compile once. */
  readonly schemas?: SchemaRegistry;
  readonly log?: Logger;
  /** Run on this engine (its caches and tokens carry over between runs) instead of a fresh one. */
  readonly engine?: Engine;
  /** The engine's path prefix of the mapping (`/<name>`) when that engine serves several (the studio's). */
  readonly prefix?: string;
  /** Record each mapping expression with what it read and gave (dry-run, the studio). */
  readonly expressions?: boolean;
}

export async function runCase(mapping: Mapping, route: RouteSpec, rawInput: unknown, client: AnsweringClient, mask: Masker, options: CaseOptions = {}): Promise<CaseRun> {
  let steps: TraceStep[] = [];
  const operation = mapping.operations.get(route.operationId);
  let outcome: Outcome;
  let failure: CaseRun['failure'];
  let entry: JournalEntry | undefined;
  const request = requestFor(route, rawInput, options.prefix);
  if ('problem' in request) {
    // No HTTP request can carry this input (a list where parameters go): what the server would never see.
    const error = new OperationFailure('INPUT_INVALID', `the request does not match the contract: ${request.problem.path} ${request.problem.message}`, [request.problem]);
    failure = { kind: error.kind, message: mask.text(error.message) };
    outcome = failureOutcome(route, error);
  } else {
    const engine = options.engine ?? createEngine({ mappings: [mapping], http: client, schemas: options.schemas, log: options.log, checkInboundAuth: false, outbox: 'inline' });
    let answer;
    try {
      answer = await engine.handle(request, { trace: true, expressions: options.expressions });
    } finally {
      if (!options.engine) await engine.close();
    }
    // A fault inside the engine is a bug: let it reach the CLI's bug report rather than pass as a result.
    if (answer.fault !== undefined) throw answer.fault;
    if (!answer.outcome) throw new Error(`the engine did not route ${request.method} ${request.path} to ${route.operationId}: ${JSON.stringify(answer.body)}`);
    outcome = answer.outcome;
    if (answer.failure) failure = { kind: answer.failure.kind, message: mask.text(answer.failure.message), problems: answer.failure.problems };
    steps = cappedExpressions(maskSteps(answer.steps ?? [], mask));
    entry = answer.entry?.();
  }
  markSources(steps, client);
  const envelope = mask.deep(toEnvelope(route, outcome)) as Envelope;
  return { route, mode: operation?.mode ?? 'unmapped', input: rawInput, steps, outcome, failure, envelope, resultName: outcome.resultName, entry };
}

/**
 * Where each request's answer came from is known only once it was sent. Token requests (OAuth2, CSRF)
 * reach the client but are no step of the trace (credentials are added below it).
 */
function markSources(steps: TraceStep[], client: AnsweringClient): void {
  const sent = client.log.filter((entry) => entry.callName !== OAUTH2_TOKEN_CALL && entry.callName !== CSRF_TOKEN_CALL);
  let index = 0;
  let latest: TraceStep | undefined;
  for (const step of steps) {
    if (step.step === 'request') {
      step.source = sent[index]?.source ?? step.source;
      index += 1;
      latest = step;
    }
    // An answer came from where its request went.
    if (step.step === 'response' && latest?.step === 'request') step.source = latest.source;
  }
}

/** A push run outside the server, through Engine.handle as the server would: checks, stored events, platform calls, traced alike. */
export interface PushRun {
  readonly push: string;
  readonly steps: TraceStep[];
  /** The HTTP answer the ERP gets (202, 400), masked. */
  readonly status: number;
  readonly body: unknown;
  readonly result: string;
  readonly delivery?: EngineAnswer['delivery'];
  readonly input: unknown;
}

export async function runPushCase(mapping: Mapping, push: string, input: unknown, client: AnsweringClient, mask: Masker, options: CaseOptions = {}): Promise<PushRun> {
  const engine = options.engine ?? createEngine({ mappings: [mapping], http: client, schemas: options.schemas, log: options.log, checkInboundAuth: false, outbox: 'inline' });
  let answer;
  try {
    answer = await engine.handle({ method: 'POST', path: `/push/${push}`, body: input }, { trace: true });
  } finally {
    if (!options.engine) await engine.close();
  }
  if (answer.fault !== undefined) throw answer.fault;
  const steps = maskSteps(answer.steps ?? [], mask);
  markSources(steps, client);
  return { push, steps, status: answer.status, body: mask.deep(answer.body), result: answer.pushResult ?? 'NotFound', delivery: answer.delivery, input };
}

/** The masker for what people read of a mapping's runs: its secret values, and the credential names of system: and platform:. */
export function maskerOf(mapping: Mapping): Masker {
  return createMasker(mapping.secretValues, declaredSecretNames(mapping.system, mapping.platform));
}

/** One run for a person to read (dry-run, record): masked with the mapping's secrets, with each expression's input and output; the client is closed after. */
export async function runMasked(mapping: Mapping, route: RouteSpec, input: unknown, client: AnsweringClient): Promise<{ run: CaseRun; mask: Masker }> {
  const mask = maskerOf(mapping);
  try {
    return { run: await runCase(mapping, route, input, client, mask, { expressions: true }), mask };
  } finally {
    client.close();
  }
}
