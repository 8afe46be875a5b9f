import { randomUUID } from 'node:crypto';
import { OperationFailure, type Problem } from '../errors';
import { describeEvaluationError } from '../expressions/compile';
import { evaluateAt } from '../mapping/evaluate';
import type { Mapping, PushSpec, Template } from '../mapping/model';
import type { NewEvent, OutboxStore, PushReceipt } from '../outbox/store';
import { traceHeadersOf, type TraceContext } from '../trace/context';
import { checkPush, type InboundVerdict } from '../access/inbound-auth';
import { tooDeep } from '../contract/body-depth';

/**
 * A push from the ERP, from the request to the stored events: credentials (over the raw bytes, for a
 * signature), the payload's checks (every problem listed, nothing stored), the idempotency key, the
 * records and their transform, and one outbox event per record or batch, stored together. The ERP is
 * answered 202 once they are durable; delivery to the platform is the deliverer's.
 */

/** `/push/<name>` under the mapping's prefix. */
const PUSH_PATH = /^\/push\/([^/]+)\/?$/;

export function pushNameOf(rest: string): string | undefined {
  const match = PUSH_PATH.exec(rest);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

export type PushOutcome =
  | { readonly kind: 'refused'; readonly verdict: Extract<InboundVerdict, { ok: false }> }
  /** `input`: the pushed JSON when it could be read. */
  | { readonly kind: 'invalid'; readonly message: string; readonly problems: readonly Problem[]; readonly input?: unknown }
  /** The body is not JSON by its content type (not read): 415. */
  | { readonly kind: 'not-json'; readonly message: string }
  /** The engine's own time limit stopped one of the push's expressions: nothing is wrong with the push, it may pass later (503). */
  | { readonly kind: 'timed-out'; readonly message: string; readonly problems: readonly Problem[]; readonly input: unknown }
  | { readonly kind: 'accepted'; readonly receipt: PushReceipt; readonly events: readonly NewEvent[]; readonly input: unknown };

export interface PushAcceptance {
  readonly checkAuth: boolean;
  /** Wall clock, ms since the epoch: signature timestamps, acceptance times. */
  readonly now: () => number;
  /** Stores the push; without a store (dry-run, test) the caller delivers the events itself. */
  readonly store?: OutboxStore;
}

/**
 * What a push reads of the request the engine took (core's EngineRequest has these fields): declared
 * here so the pushes sit below the request core and need nothing of it.
 */
export interface PushRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly rawBody?: Buffer;
  readonly bodyError?: { readonly kind: 'too-large' | 'malformed' | 'not-json'; readonly message: string };
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** The payload's text as it came: the raw bytes when the server kept them, else the parsed body again. */
function rawOf(request: PushRequest): Buffer {
  if (request.rawBody !== undefined) return request.rawBody;
  return Buffer.from(request.body === undefined ? '' : JSON.stringify(request.body), 'utf8');
}

function parsed(request: PushRequest, raw: Buffer): { input: unknown } | { problem: Problem } {
  if (request.bodyError) return { problem: { path: 'body', message: request.bodyError.kind === 'too-large' ? 'the push is larger than the engine accepts' : request.bodyError.message } };
  const empty = { problem: { path: 'body', message: 'the push is empty; a JSON body is expected' } };
  let input: unknown = request.body;
  if (request.rawBody === undefined) {
    if (input === undefined) return empty;
  } else {
    const text = raw.toString('utf8');
    if (text.trim() === '') return empty;
    try {
      input = JSON.parse(text) as unknown;
    } catch (error) {
      return { problem: { path: 'body', message: `the push is not valid JSON: ${(error as Error).message}` } };
    }
  }
  const deep = tooDeep(input, 'the push');
  return deep ? { problem: deep } : { input };
}

/** A rule's message: text with placeholders; a placeholder that gives nothing or fails leaves a gap, never an error. */
async function messageOf(template: Template, input: unknown): Promise<string> {
  let text = '';
  for (const part of template.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const value = await part.evaluate({ input }).catch(() => undefined);
    text += value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return text;
}

/** JSONata's D1012: the expression's time limit stopped it (directly, or under evaluateAt's OperationFailure). */
function stoppedByTimeLimit(error: unknown): boolean {
  const fault = error instanceof OperationFailure ? error.cause : error;
  return typeof fault === 'object' && fault !== null && (fault as { code?: unknown }).code === 'D1012';
}

/** Every problem of the payload: the schema's and each failed rule's, in that order. A rule the time limit stopped throws. */
async function problemsOf(push: PushSpec, input: unknown): Promise<Problem[]> {
  const problems: Problem[] = [...(push.schema?.(input) ?? [])];
  for (const [index, rule] of push.rules.entries()) {
    let met: unknown;
    try {
      met = await rule.expect.evaluate({ input });
    } catch (error) {
      if (stoppedByTimeLimit(error)) throw new OperationFailure('TRANSFORM_FAILED', `rules[${index}] failed: ${describeEvaluationError(error)}`, [{ path: `rules[${index}]`, message: describeEvaluationError(error) }], undefined, { cause: error });
      problems.push({ path: `rules[${index}]`, message: `the check could not be made: ${describeEvaluationError(error)}` });
      continue;
    }
    if (met !== true) problems.push({ path: `rules[${index}]`, message: await messageOf(rule.message, input) });
  }
  return problems;
}

function keyText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The events of one accepted push: one per record, or per batch of records, transformed, in order. */
async function eventsOf(mapping: Mapping, push: PushSpec, input: unknown, requestId: string, acceptedAt: number, trace: TraceContext | undefined): Promise<NewEvent[]> {
  const listed = push.records ? await evaluateAt(push.records, { input }, `push.${push.name}.records`, 'INPUT_INVALID') : [input];
  const records = listed === undefined || listed === null ? [] : Array.isArray(listed) ? listed : [listed];
  const bodies: unknown[] = [];
  for (const [index, record] of records.entries()) {
    bodies.push(push.transform ? await evaluateAt(push.transform, { input, record, index }, `push.${push.name}.transform (record ${index})`, 'INPUT_INVALID') : record);
  }
  const units = push.batch === undefined || !push.records ? bodies : Array.from({ length: Math.ceil(bodies.length / push.batch) }, (_, at) => bodies.slice(at * push.batch!, (at + 1) * push.batch!));
  const key = push.outbox.orderingKey ? keyText(await evaluateAt(push.outbox.orderingKey, { input }, `push.${push.name}.outbox.orderingKey`, 'INPUT_INVALID')) : undefined;
  return units.map((unit) => ({
    id: randomUUID(), kind: 'push', mapping: mapping.name, operation: push.name, orderingKey: key ?? `push:${push.name}`, input: unit, requestId, acceptedAt,
    blocksKeyWhenDead: push.outbox.onDeadLetter === 'block', ...(trace ? { trace: traceHeadersOf(trace) } : {}),
  }));
}

/** Throws OperationFailure EVENT_NOT_STORED when the store cannot take the push (the ERP sends it again). */
export async function acceptPush(mapping: Mapping, push: PushSpec, request: PushRequest, requestId: string, deps: PushAcceptance, trace?: TraceContext): Promise<PushOutcome> {
  const raw = rawOf(request);
  // Another content type than JSON: the server did not read the body (app.ts), so there are no bytes a
  // signature could be checked over; header credentials are still checked first.
  const notJson: PushOutcome | undefined = request.bodyError?.kind === 'not-json' ? { kind: 'not-json', message: request.bodyError.message } : undefined;
  if (notJson && push.auth.type === 'hmac') return notJson;
  if (deps.checkAuth) {
    const verdict = checkPush(push.auth, request.headers ?? {}, raw, deps.now(), `adapter-engine/${mapping.name}/push/${push.name}`);
    if (!verdict.ok) return { kind: 'refused', verdict };
  }
  if (notJson) return notJson;
  const body = parsed(request, raw);
  if ('problem' in body) return { kind: 'invalid', message: 'the push cannot be read', problems: [body.problem] };
  const { input } = body;
  let idempotencyKey: string | undefined;
  let events: NewEvent[];
  const acceptedAt = deps.now();
  try {
    const problems = await problemsOf(push, input);
    if (problems.length > 0) return { kind: 'invalid', message: `the push is not valid: ${problems.length} problem${problems.length === 1 ? '' : 's'}`, problems, input };
    idempotencyKey = keyText(await evaluateAt(push.idempotencyKey, { input }, `push.${push.name}.idempotencyKey`, 'INPUT_INVALID'));
    events = await eventsOf(mapping, push, input, requestId, acceptedAt, trace);
  } catch (error) {
    if (!(error instanceof OperationFailure)) throw error;
    // A busy engine, not a wrong push: a 400 would tell the ERP never to send it again.
    if (stoppedByTimeLimit(error)) return { kind: 'timed-out', message: 'the push could not be checked and transformed within the engine\'s time limit; send it again', problems: error.problems, input };
    return { kind: 'invalid', message: 'the push could not be turned into what the platform takes', problems: error.problems, input };
  }
  if (idempotencyKey === undefined) return { kind: 'invalid', message: 'the push has no idempotency key', problems: [{ path: `push.${push.name}.idempotencyKey`, message: 'gives nothing for this push; it must name the push (e.g. its document number)' }], input };
  if (!deps.store) return { kind: 'accepted', receipt: { eventIds: events.map((event) => event.id), duplicate: false }, events, input };
  try {
    return { kind: 'accepted', receipt: await deps.store.enqueuePush({ mapping: mapping.name, push: push.name, idempotencyKey, acceptedAt, events }), events, input };
  } catch {
    throw new OperationFailure('EVENT_NOT_STORED', 'the push could not be stored for delivery; send it again', [{ path: '', message: 'the outbox store is not available' }]);
  }
}
