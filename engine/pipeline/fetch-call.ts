import { OperationFailure } from '../errors';
import { TransportError, type OutboundRequest, type OutboundResponse } from '../http/client';
import type { ErpConnection } from '../http/connection';
import type { Deadline } from '../http/deadline';
import type { AttemptReport } from '../http/with-retry';
import { DeadlinePassed, RequestAbandoned, TokenUnavailable } from '../http/faults';
import type { Logger } from '../log';
import { withoutEmptyValues } from '../mapping/empty-values';
import type { CallSpec, SystemSpec } from '../mapping/model';
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

/** `keeps` collects each page's cache offer, made once the whole answer is judged a success. */
function sender(call: CallSpec, label: string, env: CallEnv, keeps: (() => void)[], contextOf: (built: OutboundRequest) => ExpressionContext): SendPage {
  return async (built) => {
    // The headers that change per attempt, over the request as it is sent (its page's URL included),
    // with what the page's build saw (page.offset, … when the page state goes in the body).
    const context = contextOf(built);
    const renew = (request: OutboundRequest) => withAttemptHeaders(call, request, context, env.observer);
    // A new span id per request (per page, per fan-out element); retries of it send the same one.
    const request = await renew(env.trace ? { ...built, trace: traceHeadersOf(childOf(env.trace)) } : built);
    env.observer?.request?.(request, label);
    const started = performance.now();
    let attempts = 0;
    const onAttempt = (name: string, report: AttemptReport) => {
      attempts = Math.max(attempts, report.attempt);
      env.observer?.attempt?.(name, report);
    };
    const seconds = () => (performance.now() - started) / 1000;
    let result;
    try {
      result = await env.connection.send(call, request, { label, deadline: env.deadline, log: env.log, onAttempt, renew: call.attemptHeaders.length > 0 ? renew : undefined });
    } catch (error) {
      env.onCall?.({ call: call.name, statusClass: 'none', attempts: Math.max(attempts, 1), seconds: seconds(), cache: call.cache ? 'miss' : undefined });
      throw meaningOf(error, label);
    }
    const statusClass = result.cached ? 'cached' : `${Math.floor(result.response.status / 100)}xx`;
    env.onCall?.({ call: call.name, statusClass, attempts: result.attempts, seconds: seconds(), cache: call.cache ? (result.cached ? 'hit' : 'miss') : undefined });
    if (result.keep) keeps.push(result.keep);
    const read = call.responseType === 'xml' ? await readXml(result.response, call, env.connection.system) : { response: result.response, shown: result.response, repeated: [] };
    // The trace shows an XML answer as the text it was, not as bytes or as the view.
    // Only what an XML answer adds is added: observers of a JSON call see { attempts, cached } as before.
    const xml = call.responseType === 'xml' ? { xml: true, ...(read.repeated.length > 0 ? { repeated: read.repeated } : {}) } : {};
    env.observer?.response?.(label, read.shown, { attempts: result.attempts, cached: result.cached, ...xml });
    const { emptyValues } = env.connection.system;
    if (emptyValues.length === 0) return read.response;
    // An XML answer's view is read as body and, for SOAP, as result: both are the answer (NAV's blank date 0001-01-01).
    const view: ReadResponse = read.response;
    return { ...view, body: withoutEmptyValues(view.body, emptyValues), ...(view.result === undefined ? {} : { result: withoutEmptyValues(view.result, emptyValues) }) };
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
  let text: string;
  try {
    text = decodeXml(response.body, charset);
  } catch {
    text = Buffer.from(response.body).toString('utf8');
  }
  const shown = { ...response, body: text };
  try {
    // In time slices: a large answer (1M elements, 8 MB) parsed in one go stalled every other request for half a second.
    const document = await parseXmlInSlices(response.body, new TimeSlices(), { namespaces: system.xml.namespaces, prefixedKeys: system.xml.prefixedKeys, lists: call.lists, charset });
    return { response: { ...response, body: document.body, result: document.result, fault: document.fault }, shown, repeated: document.repeated.map((element) => element.path) };
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    return { response: { ...response, body: undefined, bodyError: xmlProblem(error) }, shown, repeated: [] };
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
    const { refusal } = call;
    const refused = refusal && (async (page: CallRecord) => (await evaluateAt(refusal.when, { ...context, response: page, call: call.name }, `calls.${label}: refusal.when`)) === true);
    return { ...(await fetchPages(call.paginate, { build, send, encoding: call.queryEncoding, refused }, context, label, system.baseUrl)), keep };
  }
  const request = await build();
  const response = await send(request);
  return { record: recordOf(response), target: targetOf(request), bodyError: response.bodyError, keep };
}
