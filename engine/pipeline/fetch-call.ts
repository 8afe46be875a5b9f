import { OperationFailure } from '../errors';
import { TransportError, type OutboundRequest, type OutboundResponse } from '../http/client';
import type { ErpConnection, SendContext } from '../http/connection';
import type { Deadline } from '../http/deadline';
import type { AttemptReport } from '../http/with-retry';
import { DeadlinePassed, RequestAbandoned, TokenUnavailable } from '../http/faults';
import type { Logger } from '../log';
import { withoutEmptyValues } from '../mapping/empty-values';
import type { CallSpec, LocatedExpression, SystemSpec } from '../mapping/model';
export type { Answer } from './answer';
import { buildRequest, withAttemptHeaders } from './build-request';
import { recordOf, type Answer, type ReadResponse, type SendPage } from './answer';
import { decodeXml } from '../xml/decode';
import { XmlError } from '../xml/errors';
import { parseXmlInSlices } from '../xml/read';
import { TimeSlices } from '../time-slices';
import type { CallRecord, ExpressionContext } from './context';
import { evaluateAt } from '../mapping/evaluate';
import { fetchPages, type PageState } from './paginate';
import { mayAskToWait, refusalFor, refuses } from './refusal';
import { childOf, traceHeadersOf, type TraceContext } from '../trace/context';
import type { TraceObserver } from '../trace/observer';

/** One call to the ERP as metrics see it; statusClass is "none" when no answer came. */
export interface CallReport {
  readonly call: string;
  readonly statusClass: string;
  readonly attempts: number;
  readonly seconds: number;
  readonly cache?: 'hit' | 'miss';
}

/** What one call needs from the request it serves. */
export interface CallEnv {
  /** The system called (the ERP, or the platform for a push) with its limits, credentials and caches. */
  readonly connection: ErpConnection;
  readonly deadline: Deadline;
  readonly observer?: TraceObserver;
  readonly log?: Logger;
  /** The platform request's id, sent to the ERP in system.requestIdHeader. */
  readonly requestId?: string;
  /** An outbox event's id, sent on every delivery attempt in system.idempotencyHeader. */
  readonly idempotencyKey?: string;
  /** The span the calls are made under (the request's, a delivery's): each request carries a child of it as its traceparent. */
  readonly trace?: TraceContext;
  readonly onCall?: (report: CallReport) => void;
}

function targetOf(request: OutboundRequest): string {
  return `${request.method} ${request.url.pathname}`;
}

/** What an outbound fault means for the request: the HTTP layer reports it, the pipeline decides. */
function meaningOf(error: unknown, label: string): unknown {
  if (error instanceof TransportError) return new OperationFailure('ERP_UNREACHABLE', error.message, [{ path: `calls.${label}`, message: error.summary }]);
  if (error instanceof RequestAbandoned) return new OperationFailure('DEADLINE_EXCEEDED', error.message, [{ path: `calls.${label}`, message: error.message }]);
  if (error instanceof DeadlinePassed) return new OperationFailure('DEADLINE_EXCEEDED', error.message, [{ path: `calls.${label}`, message: error.message }]);
  if (error instanceof TokenUnavailable) return new OperationFailure('AUTH_FAILED', error.message, [{ path: 'system.auth', message: error.summary }]);
  return error;
}

/** An answer as expressions read it: XML into its view, the system's emptyValues taken out. */
type Read = { response: ReadResponse; shown: OutboundResponse; repeated: readonly string[] };

async function readAnswer(response: OutboundResponse, call: CallSpec, system: SystemSpec): Promise<Read> {
  const read = call.responseType === 'xml' ? await readXml(response, call, system) : { response: response as ReadResponse, shown: response, repeated: [] };
  const { emptyValues } = system;
  if (emptyValues.length === 0) return read;
  // An XML answer's view is read as body and, for SOAP, as result: both are the answer (NAV's blank date 0001-01-01).
  const view = read.response;
  return { ...read, response: { ...view, body: withoutEmptyValues(view.body, emptyValues), ...(view.result === undefined ? {} : { result: withoutEmptyValues(view.result, emptyValues) }) } };
}

/**
 * Whether one attempt's answer asks to be asked again later: the call's refusal rule refuses it and its
 * retryable gives true. Read only when the rule has a retryable; the answer is read once for it and the
 * pipeline (`reads`).
 */
function waitRule(call: CallSpec, label: string, context: ExpressionContext, reads: WeakMap<OutboundResponse, Promise<Read>>, system: SystemSpec): SendContext['asksToWait'] {
  if (!mayAskToWait(call)) return undefined;
  return async (response) => {
    const reading = reads.get(response) ?? readAnswer(response, call, system);
    reads.set(response, reading);
    const read = await reading;
    if (read.response.bodyError !== undefined) return undefined;
    const refused = await refusalFor(call, { ...context, response: recordOf(read.response), call: call.name }, label);
    return refused?.asksToWait ? { ms: refused.retryAfterMs } : undefined;
  };
}

/** What system.rateLimit.cost reads as `request`: the request about to go out, credentials not yet added. */
function requestView(request: OutboundRequest): Record<string, unknown> {
  return { method: request.method, path: request.url.pathname, query: Object.fromEntries(request.url.searchParams), headers: request.headers, body: request.body };
}

/**
 * The points one request takes of system.rateLimit: its cost expression (a number, at least 0), else 1
 * (undefined: no promise to wait for when the system has no cost expression).
 */
function costOf(call: CallSpec, request: OutboundRequest, context: ExpressionContext, label: string, env: CallEnv): Promise<number> | undefined {
  const cost = env.connection.system.rateLimit?.cost;
  // A url of system.assetHosts goes to another host: it takes nothing of the system's budget.
  if (!cost || call.absolute) return undefined;
  return pointsOf(cost, request, context, label);
}

async function pointsOf(cost: LocatedExpression, request: OutboundRequest, context: ExpressionContext, label: string): Promise<number> {
  const value = await evaluateAt(cost, { ...context, request: requestView(request) }, `calls.${label}: system.rateLimit.cost`);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    const message = `calls.${label}: system.rateLimit.cost (${cost.origin.line}:${cost.origin.col}) gave ${JSON.stringify(value) ?? 'nothing'}; it must give a number of points, 0 or more`;
    throw new OperationFailure('TRANSFORM_FAILED', message, [{ path: `calls.${label}`, message }]);
  }
  return value;
}

/** system.rateLimit.observe over one attempt's answer: the level the system reports, when it reports a number. */
function levelRule(call: CallSpec, label: string, reads: WeakMap<OutboundResponse, Promise<Read>>, system: SystemSpec): SendContext['levelOf'] {
  const observe = system.rateLimit?.observe;
  if (!observe) return undefined;
  return async (response) => {
    const reading = reads.get(response) ?? readAnswer(response, call, system);
    reads.set(response, reading);
    const read = await reading;
    if (read.response.bodyError !== undefined) return undefined;
    const level = await evaluateAt(observe, { response: recordOf(read.response) }, `calls.${label}: system.rateLimit.observe`);
    return typeof level === 'number' && Number.isFinite(level) ? level : undefined;
  };
}

/** `keeps` collects each page's cache offer, made once the whole answer is judged a success. */
function sender(call: CallSpec, label: string, env: CallEnv, keeps: (() => void)[], contextOf: (built: OutboundRequest) => ExpressionContext): SendPage {
  const { system } = env.connection;
  const reads = new WeakMap<OutboundResponse, Promise<Read>>();
  const levelOf = levelRule(call, label, reads, system);
  return async (built) => {
    // The headers that change per attempt, over the request as it is sent (its page's URL included),
    // with what the page's build saw (page.offset, … when the page state goes in the body).
    const context = contextOf(built);
    const asksToWait = waitRule(call, label, context, reads, system);
    const renew = (request: OutboundRequest) => withAttemptHeaders(call, request, context, env.observer);
    // A new span id per request (per page, per fan-out element); retries of it send the same one.
    const traced = env.trace ? { ...built, trace: traceHeadersOf(childOf(env.trace)) } : built;
    // A call without headers of its own per attempt goes as built, without waiting on a promise for it.
    const request = call.attemptHeaders.length > 0 ? await renew(traced) : traced;
    env.observer?.request?.(request, label);
    const started = performance.now();
    let attempts = 0;
    const onAttempt = (name: string, report: AttemptReport) => {
      attempts = Math.max(attempts, report.attempt);
      env.observer?.attempt?.(name, report);
    };
    const seconds = () => (performance.now() - started) / 1000;
    const pricing = costOf(call, request, context, label, env);
    const cost = pricing && (await pricing);
    let result;
    try {
      result = await env.connection.send(call, request, { label, deadline: env.deadline, log: env.log, onAttempt, asksToWait, cost, levelOf, renew: call.attemptHeaders.length > 0 ? renew : undefined });
    } catch (error) {
      env.onCall?.({ call: call.name, statusClass: 'none', attempts: Math.max(attempts, 1), seconds: seconds(), cache: call.cache ? 'miss' : undefined });
      throw meaningOf(error, label);
    }
    const statusClass = result.cached ? 'cached' : `${Math.floor(result.response.status / 100)}xx`;
    env.onCall?.({ call: call.name, statusClass, attempts: result.attempts, seconds: seconds(), cache: call.cache ? (result.cached ? 'hit' : 'miss') : undefined });
    if (result.keep) keeps.push(result.keep);
    const read = await (reads.get(result.response) ?? readAnswer(result.response, call, system));
    // The trace shows an XML answer as the text it was, not as bytes or as the view.
    // Only what an XML answer adds is added: observers of a JSON call see { attempts, cached } as before.
    const xml = call.responseType === 'xml' ? { xml: true, ...(read.repeated.length > 0 ? { repeated: read.repeated } : {}) } : {};
    env.observer?.response?.(label, read.shown, { attempts: result.attempts, cached: result.cached, ...xml });
    return result.waitRefused === undefined ? read.response : { ...read.response, waitRefused: result.waitRefused };
  };
}

/**
 * An XML answer read into its view (xml/read.ts): the body is the whole document, a SOAP envelope adds
 * its result and fault. Malformed, truncated, a DOCTYPE, past a limit: the call failed (a bodyError,
 * judged ERP_BODY_UNREADABLE), never a partial view.
 */
async function readXml(response: OutboundResponse, call: CallSpec, system: SystemSpec): Promise<{ response: ReadResponse; shown: OutboundResponse; repeated: readonly string[] }> {
  if (!(response.body instanceof Uint8Array)) return { response, shown: response, repeated: [] };
  const charset = /;\s*charset="?([^";\s]+)/i.exec(response.headers['content-type'] ?? '')?.[1];
  try {
    // In time slices, decoded as the parse goes: a large answer (1M elements, 8 MB) decoded and parsed in one go
    // stalled every other request for half a second.
    const document = await parseXmlInSlices(response.body, new TimeSlices(), { namespaces: system.xml.namespaces, prefixedKeys: system.xml.prefixedKeys, lists: call.lists, charset });
    return { response: { ...response, body: document.body, result: document.result, fault: document.fault }, shown: { ...response, body: document.text }, repeated: document.repeated.map((element) => element.path) };
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    return { response: { ...response, body: undefined, bodyError: xmlProblem(error) }, shown: { ...response, body: shownText(response.body, charset) }, repeated: [] };
  }
}

/** An unreadable answer's text as the trace shows it: decoded by its declared encoding where it can be, else as UTF-8 with replacements. */
function shownText(body: Uint8Array, charset: string | undefined): string {
  try {
    return decodeXml(body, charset);
  } catch {
    return Buffer.from(body).toString('utf8');
  }
}

/** What was wrong with an XML answer, as the platform is told it ("the external system answered 200 with …"). */
function xmlProblem(error: XmlError): string {
  const at = error.line === undefined ? '' : ` at line ${error.line}, column ${error.column ?? 1}`;
  switch (error.kind) {
    case 'doctype': return 'XML with a DOCTYPE, which is refused (no DTD or entity is ever read)';
    case 'malformed': return `XML that is not well-formed${at}: ${error.reason}`;
    case 'limit': return `XML past the adapter's reading limits${at}: ${error.reason}`;
    case 'encoding': return `XML that is not text in its encoding: ${error.reason}`;
    default: return `XML that cannot be read${at}: ${error.reason}`;
  }
}

/**
 * The request id (and an outbox event's idempotency key) travel to the ERP unless the mapping turned the
 * header off or a call sets that header itself.
 */
function withEngineHeaders(request: OutboundRequest, system: SystemSpec, env: CallEnv): OutboundRequest {
  const added: Record<string, string> = {};
  const present = (name: string) => Object.keys(request.headers).some((key) => key.toLowerCase() === name.toLowerCase());
  if (system.requestIdHeader && env.requestId !== undefined && !present(system.requestIdHeader)) added[system.requestIdHeader] = env.requestId;
  if (system.idempotencyHeader && env.idempotencyKey !== undefined && !present(system.idempotencyHeader)) added[system.idempotencyHeader] = env.idempotencyKey;
  return Object.keys(added).length === 0 ? request : { ...request, headers: { ...request.headers, ...added } };
}

/** Builds and sends one call (every page of it, when paginated). Transport failures throw. */
export async function fetchAnswer(call: CallSpec, context: ExpressionContext, label: string, env: CallEnv): Promise<Answer> {
  const { system } = env.connection;
  const keeps: (() => void)[] = [];
  const keep = () => keeps.forEach((offer) => offer());
  // Each page's request with the context it was built in, for the headers computed as it is sent.
  const builtIn = new WeakMap<OutboundRequest, ExpressionContext>();
  const send = sender(call, label, env, keeps, (built) => builtIn.get(built) ?? context);
  const build = async (page?: PageState) => {
    const pageContext = page ? { ...context, page } : context;
    const request = withEngineHeaders(await buildRequest(call, system, pageContext, env.observer), system, env);
    builtIn.set(request, pageContext);
    return request;
  };
  if (call.paginate) {
    const refused = refuses(call) ? async (page: CallRecord) => (await refusalFor(call, { ...context, response: page, call: call.name }, label)) !== undefined : undefined;
    return { ...(await fetchPages(call.paginate, { build, send, encoding: call.queryEncoding, refused }, context, label, system.baseUrl)), keep };
  }
  const request = await build();
  const response = await send(request);
  return { record: recordOf(response), target: targetOf(request), bodyError: response.bodyError, keep, ...(response.waitRefused === undefined ? {} : { waitRefused: response.waitRefused }) };
}
