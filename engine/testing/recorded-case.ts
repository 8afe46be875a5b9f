import fs from 'node:fs';
import path from 'node:path';
import { Document } from 'yaml';
import { appendedCase } from './append-case';
import type { Envelope } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import { isTruncated, type EventState, type JournalEntry } from '../journal/journal-entry';
import type { DeliveryVerdict, TraceStep } from '../trace/steps';
import type { TransportErrorCode } from '../http/client';
import { RETRYABLE_STATUS } from '../http/with-retry';
import { isSecretName } from '../mapping/mask';
import type { RecordedAnswer } from './answers';
import { testSchemaLine, type TestCase } from './test-file';
import { writeAtomically } from './write-atomically';

/**
 * A request that ran against the ERP, written as a mapping test case (the format of `adapter-engine
 * test`): its input, the ERP's answers as recorded answers, and the envelope as the expectation. Used by
 * `record` (a live run) and `requests export --as-test` (a request from the journal); both hand in
 * steps that are already masked, so no credential reaches the file.
 */
export interface RanRequest {
  readonly route: RouteSpec;
  readonly input: unknown;
  readonly steps: readonly TraceStep[];
  readonly resultName: string;
  readonly envelope: Envelope;
  /** delivery: outbox: where the stored event stands, with the receiver's last answer; the case replays that delivery. */
  readonly event?: EventState;
}

/** Headers that describe the connection, not the answer: a replay does not need them. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'server', 'etag', 'last-modified', 'vary', 'x-request-id']);

/** Why a request cannot become a test case (a body the journal cut), or the case. */
export function testCaseOf(ran: RanRequest, name: string): TestCase | { problem: string } {
  const answers: Record<string, RecordedAnswer[]> = {};
  for (const step of ran.steps) {
    // A fan-out element is labelled `call[i]`; its answers are the call's, in order.
    const call = step.step === 'response' || step.step === 'no answer' ? step.call.replace(/\[\d+\]$/, '') : undefined;
    if (call === undefined) continue;
    // A call that failed after retries failed alike each time: the replay gets the failure as often as the
    // engine tried, so its retries find an answer too (one answer would leave them unanswered).
    if (step.step === 'no answer') {
      (answers[call] ??= []).push(...Array.from({ length: Math.max(1, step.attempts) }, () => ({ error: step.error as TransportErrorCode })));
      continue;
    }
    if (step.step !== 'response') continue;
    if (isTruncated(step.body)) return { problem: `the answer of call ${call} was larger than the journal keeps (${step.body.truncated}); record the case with "adapter-engine record" instead` };
    const headers = Object.fromEntries(Object.entries(step.headers).filter(([header]) => !CONNECTION_HEADERS.has(header.toLowerCase()) && !isSecretName(header)));
    const answer: RecordedAnswer = {
      ...(step.status === 200 ? {} : { status: step.status }),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      // An XML answer is replayed as its text (xml:), read by the same rules, readable or not; another
      // answer the engine could not read is replayed as text that cannot be read either (no JSON).
      ...(step.xml && typeof step.body === 'string' ? { xml: step.body } : step.bodyError !== undefined ? { text: '' } : { body: step.body }),
    };
    // Likewise a status the engine tries again (429, 503) it got on every attempt; an answer after retries
    // that ended them is given once (the failures before it were not kept).
    (answers[call] ??= []).push(...Array.from({ length: RETRYABLE_STATUS.has(step.status) ? Math.max(1, step.attempts ?? 1) : 1 }, () => answer));
  }
  const delivery = ran.event ? deliveryOf(ran.event) : deliveryRan(ran.steps);
  if (delivery && 'problem' in delivery) return delivery;
  if (delivery?.call !== undefined) answers[delivery.call] = [delivery.answer];
  if (isTruncated(ran.input)) return { problem: `the request body was larger than the journal keeps (${ran.input.truncated})` };
  const { envelope } = ran;
  if (isTruncated(envelope.data)) return { problem: `the answered data was larger than the journal keeps (${envelope.data.truncated})` };
  return {
    name,
    operation: ran.route.operationId,
    input: ran.input,
    answers: Object.fromEntries(Object.entries(answers).map(([call, list]) => [call, list.length === 1 ? list[0] : list])),
    expect: {
      result: ran.resultName,
      ...(envelope.data === undefined || envelope.data === null ? {} : { data: envelope.data }),
      ...(envelope.externalMessage === null ? {} : { externalMessage: envelope.externalMessage }),
      ...(delivery ? { delivery: delivery.verdict } : {}),
    },
  };
}

/**
 * A delivery run inline (record: no store, the event delivered while the command waits): its verdict.
 * The ERP's answers to it are among the steps' answers already, so the case replays the same delivery.
 */
function deliveryRan(steps: readonly TraceStep[]): { call?: undefined; verdict: DeliveryVerdict } | undefined {
  const step = steps.find((candidate) => candidate.step === 'delivery');
  return step?.step === 'delivery' ? { verdict: step.verdict } : undefined;
}

const VERDICTS = { delivered: 'delivered', pending: 'retry', dead: 'dead', refused: 'refused' } as const;

/** The delivery of a stored event as a case replays it: the receiver's last answer to its call, and what the delivery made of it. */
function deliveryOf(event: EventState): { call: string; answer: RecordedAnswer; verdict: DeliveryVerdict } | { problem: string } {
  if (event.status === 'dropped' || event.status === 'gone') return { problem: `its event ${event.id} was ${event.status === 'gone' ? 'purged' : 'dropped'}: the outbox no longer says how its delivery went` };
  const { last } = event;
  if (!last?.call || last.status === undefined) {
    const why = event.status === 'pending' && event.attempts === 0 ? 'it has not been tried yet' : `its last attempt got no answer (${last?.error ?? 'nothing recorded'})`;
    return { problem: `its event ${event.id} has no answer of the external system to replay: ${why}` };
  }
  // The outbox keeps the first 2,000 characters of an answer (see run-call.ts bodyText).
  if (last.body !== undefined && last.body.length > 2000 && last.body.endsWith('…')) return { problem: `the answer to its event ${event.id} was longer than the outbox keeps; record the case with "adapter-engine record" instead` };
  let body: { body: unknown } | { text: string } | object = {};
  if (last.body !== undefined) {
    try {
      body = { body: JSON.parse(last.body) as unknown };
    } catch {
      body = { text: last.body };
    }
  }
  return { call: last.call, answer: { ...(last.status === 200 ? {} : { status: last.status }), ...body }, verdict: VERDICTS[event.status] };
}

/** The input of a journal entry as a test case gives it: where the route reads it from. */
export function inputOf(entry: JournalEntry, route: RouteSpec): unknown {
  switch (route.inputSource) {
    case 'query': return entry.request.query ?? {};
    case 'path': return entry.request.params ?? {};
    case 'body': return entry.request.body;
    case 'none': return {};
  }
}

/** The test file's `mapping:` entry: none when the file sits beside the mapping with the conventional name. */
function mappingReference(testFile: string, mappingFile: string): string | undefined {
  const conventional = path.resolve(testFile).replace(/\.test\.(ya?ml)$/, '.$1');
  if (conventional === path.resolve(mappingFile)) return undefined;
  return path.relative(path.dirname(path.resolve(testFile)), path.resolve(mappingFile)).split(path.sep).join('/');
}

/** The text of a test file holding `testCase`: appended to `existing` (kept as written, comments too), or a new file. */
export function withCase(existing: string | undefined, testCase: TestCase, testFile: string, mappingFile: string): string {
  if (existing !== undefined && existing.trim() !== '') return appendedCase(existing, testCase, testFile);
  const reference = mappingReference(testFile, mappingFile);
  const doc = new Document({ ...(reference === undefined ? {} : { mapping: reference }), cases: [testCase] });
  doc.commentBefore = ` ${testSchemaLine(testFile).replace(/^# /, '')}`;
  return doc.toString({ lineWidth: 0 });
}

/** Appends the case to the test file (created when missing). */
export function appendCase(testFile: string, testCase: TestCase, mappingFile: string): void {
  const existing = fs.existsSync(testFile) ? fs.readFileSync(testFile, 'utf8') : undefined;
  writeAtomically(testFile, withCase(existing, testCase, testFile, mappingFile));
}
