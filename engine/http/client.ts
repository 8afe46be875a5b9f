import { createHash } from 'node:crypto';
import { pipeline, type Readable } from 'node:stream';
import tls from 'node:tls';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { ResponseType, TlsSpec } from '../mapping/model';
import { engineVersion } from '../paths';
import { decodeErrorBody } from './error-body';
import { RequestAbandoned } from './faults';

/**
 * The one module that talks to external systems. Everything outbound goes through `HttpClient.send`,
 * so the client can be measured, swapped for a fake in tests, and hardened in one place.
 */
export interface OutboundRequest {
  readonly callName: string;
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON body, already built by the mapping; undefined sends no body. */
  readonly body?: unknown;
  /** Form fields sent as application/x-www-form-urlencoded instead of a JSON body (OAuth2 token requests). */
  readonly form?: Readonly<Record<string, string>>;
  /** TLS settings of the mapping (CA bundle, client certificate, certificate checking). */
  readonly tls?: TlsSpec;
  readonly timeoutMs: number;
  readonly responseType: ResponseType;
  readonly maxResponseBytes: number;
  /** Aborted when the platform closed the connection: the call is cut off (RequestAbandoned) instead of running to its timeout. */
  readonly signal?: AbortSignal;
  /** W3C trace context of this call (trace/context.ts), sent as `traceparent` and `tracestate` unless the mapping sets them. */
  readonly trace?: { readonly traceparent: string; readonly tracestate?: string };
}

export interface OutboundResponse {
  readonly status: number;
  /** Lower-cased header names; repeated headers joined by ", ", except set-cookie by "\n" (cookie dates hold commas). */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed as the call declared: JSON value, text, or Base64 of the bytes. Undefined when unreadable. */
  readonly body: unknown;
  /** Why the body could not be read as declared (e.g. HTML where JSON was expected). */
  readonly bodyError?: string;
  readonly durationMs: number;
}

/** The header of that name among `headers`, in whatever letter case it was written. */
function headerIn(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

/** Whether a Content-Type is JSON's (application/json, application/problem+json, …). */
export function isJsonType(contentType: string): boolean {
  return JSON_TYPE.test(contentType);
}

export interface Wire {
  readonly contentType?: string;
  readonly text?: string;
}

/**
 * A body as it goes on the wire under the request's headers, decided in this one place for the client,
 * dry-run and the mapping tests: a text body under a Content-Type the mapping set that is not JSON
 * (text/xml, text/plain) as that text, byte for byte; anything else as JSON.
 */
export function wireOf(body: unknown, headers: Readonly<Record<string, string>>): Wire {
  if (body === undefined) return {};
  const declared = headerIn(headers, 'content-type');
  if (typeof body === 'string' && declared !== undefined && !isJsonType(declared)) return { contentType: declared, text: body };
  return { contentType: declared ?? 'application/json', text: JSON.stringify(body) };
}

/** The request's body on the wire: form fields as a form, the rest as wireOf says. */
export function wireBody(request: OutboundRequest): Wire {
  if (request.form !== undefined) return { contentType: FORM_TYPE, text: new URLSearchParams(request.form as Record<string, string>).toString() };
  return wireOf(request.body, request.headers);
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * The headers that go on the wire; the CLI's dry run shows exactly these. A header the mapping sets
 * replaces the engine's default of that name in any letter case: never two Content-Types. The default
 * is wireBody's Content-Type, told without writing the body: the client and the trace each asked for
 * the headers, and a JSON body was written out twice more per call only to learn its type.
 */
export function outgoingHeaders(request: OutboundRequest): Record<string, string> {
  if (headerIn(request.headers, 'content-type') !== undefined) return { ...request.headers };
  // What wireBody gives a request without a declared type: a form as a form, any other body as JSON.
  const contentType = request.form !== undefined ? FORM_TYPE : request.body !== undefined ? 'application/json' : undefined;
  return contentType === undefined ? { ...request.headers } : { 'content-type': contentType, ...request.headers };
}

export type TransportErrorCode = 'TIMEOUT' | 'REFUSED' | 'RESET' | 'DNS' | 'TLS' | 'TOO_LARGE' | 'NETWORK';

/** No usable HTTP answer arrived. */
export class TransportError extends Error {
  /** What the platform may read: the fault without the ERP's URL (the message, for the log, has it). */
  readonly summary: string;

  constructor(readonly code: TransportErrorCode, message: string, summary?: string) {
    super(message);
    this.name = 'TransportError';
    this.summary = summary ?? message.replace(/^[A-Z]+ \S+: /, '');
  }
}

export interface HttpClient {
  send(request: OutboundRequest): Promise<OutboundResponse>;
  close(): void;
}

/** How long a connection to the ERP may take to open; a call's own timeoutMs bounds it further. */
const CONNECT_TIMEOUT_MS = 10_000;

const TLS_CODES = /CERT|SELF_SIGNED|TLS|SSL|EPROTO|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/** The code of a failure to reach the ERP: undici's own (`UND_ERR_*`) or the socket's (`ECONNREFUSED`, a TLS code). */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  // undici reports some socket failures as its own error with the system's error as the cause.
  if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
  return errorCode(cause) ?? (typeof code === 'string' ? code : undefined);
}

/** The call as failure messages name it: method and URL without the query (which may hold credentials). */
function targetOf(request: OutboundRequest): string {
  return `${request.method} ${request.url.origin}${request.url.pathname}`;
}

function classify(error: unknown, request: OutboundRequest): TransportError | undefined {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const target = targetOf(request);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new TransportError('TIMEOUT', `${target}: no connection within ${CONNECT_TIMEOUT_MS} ms`);
  if (code.startsWith('Z_')) return new TransportError('NETWORK', `${target}: the answer's compressed body could not be decompressed (${message})`);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
    return new TransportError('TIMEOUT', `${target}: no answer within ${request.timeoutMs} ms`);
  }
  if (code === 'ECONNREFUSED') return new TransportError('REFUSED', `${target}: connection refused`);
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return new TransportError('RESET', `${target}: connection reset by the server`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new TransportError('DNS', `${target}: host name not found`);
  if (TLS_CODES.test(code)) return new TransportError('TLS', `${target}: TLS failure (${code})`);
  return new TransportError('NETWORK', `${target}: ${code.startsWith('UND_ERR') ? message : code}`);
}

class TooLarge extends Error {}

/** Shared with the CLI's recorded answers, so a recorded text body is read exactly as a live one. */
/** Content types that say the answer is text (an error page, a JSON error) rather than the bytes a binary call asked for. */
const TEXT_CONTENT = /^\s*(text\/|application\/(json|xml|problem\+json|problem\+xml|xhtml\+xml|javascript)\b|application\/[\w.+-]*\+(json|xml)\b)/i;

function preview(text: string): string {
  return `"${text.slice(0, 80).replace(/\s+/g, ' ')}${text.length > 80 ? '…' : ''}"`;
}

/** The bodyError of an empty answer (status other than 204) to a JSON or XML call. */
export const EMPTY_BODY = 'the answer has an empty body';

export function decodeBody(data: Buffer, responseType: ResponseType, contentType: string, status?: number): { body: unknown; bodyError?: string } {
  if (responseType === 'binary' && status !== undefined && status >= 400) return decodeErrorBody(data, contentType);
  if (responseType === 'binary') {
    // An ERP that cannot deliver the file usually answers an HTML page or a JSON error, often with status
    // 200: passed on as Base64 it would be "the image". An image/* type (SVG is XML) is always bytes.
    if (TEXT_CONTENT.test(contentType) && !/^\s*image\//i.test(contentType)) {
      return { body: undefined, bodyError: `the answer is text (content-type ${contentType}), not the binary data the call expects: ${preview(data.toString('utf8'))}` };
    }
    if (data.length === 0) return { body: undefined, bodyError: 'the answer has an empty body; the call expects binary data' };
    return { body: data.toString('base64') };
  }
  // XML is read by the pipeline, which knows the call's namespaces and lists: the bytes, as they came.
  if (responseType === 'xml') return data.length > 0 ? { body: data } : status === 204 ? { body: null } : { body: null, bodyError: EMPTY_BODY };
  const text = data.toString('utf8');
  if (responseType === 'text') return { body: text };
  // An empty answer is no JSON value: read as null it became "no work orders" (Succeed with []). Only an
  // explicit 204 No Content is an empty answer by intent; event routes accept an empty answer (run-call.ts).
  if (text.trim() === '') return status === 204 ? { body: null } : { body: null, bodyError: EMPTY_BODY };
  try {
    return { body: JSON.parse(text) };
  } catch {
    return { body: undefined, bodyError: `the answer is not JSON (content-type ${contentType || 'none'}): ${preview(text)}` };
  }
}

function flattenHeaders(headers: Record<string, unknown>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || value === null) continue;
    const lower = name.toLowerCase();
    flat[lower] = Array.isArray(value) ? value.join(lower === 'set-cookie' ? '\n' : ', ') : String(value);
  }
  return flat;
}

/**
 * Reads an answer's body up to `max` bytes (after decompression): an ERP that sends more is cut off
 * instead of filling the memory of every customer's engine.
 */
async function readCapped(body: Readable, declaredLength: string | undefined, max: number): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > max) {
    body.destroy();
    throw new TooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new TooLarge();
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/**
 * The decoders of the content codings the engine asks for. Written here rather than taken from undici's
 * decompress interceptor: that one is marked experimental and warns on stderr at every start.
 */
const DECODERS: Readonly<Record<string, () => NodeJS.ReadWriteStream>> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };

/** The body as its content, the codings of `content-encoding` undone last to first; an unknown coding is left as it is. */
function decompressed(body: Readable, method: string, status: number, encoding: string | undefined): Readable {
  // These answers have no body to decode, whatever their headers say.
  if (encoding === undefined || method === 'HEAD' || status === 204 || status === 304) return body;
  const codings = encoding.toLowerCase().split(',').map((coding) => coding.trim()).filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0 || codings.some((coding) => DECODERS[coding] === undefined)) return body;
  const decoders = codings.reverse().map((coding) => DECODERS[coding]!());
  // pipeline destroys every stream when one fails; the failure reaches the reader of the last one.
  return pipeline([body, ...decoders], () => undefined) as unknown as Readable;
}

/**
 * Names the engine sends unless the mapping sets them: compressed answers, who is calling, and the trace
 * the call belongs to. Added here, on the way out like credentials, so dry-run and the journal do not
 * show a new random traceparent on every run (the journal keeps the trace id on its own).
 */
function withEngineHeaders(headers: Record<string, string>, userAgent: string, trace: OutboundRequest['trace']): Record<string, string> {
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const traced = trace && !names.has('traceparent') ? { traceparent: trace.traceparent, ...(trace.tracestate === undefined || names.has('tracestate') ? {} : { tracestate: trace.tracestate }) } : {};
  return {
    ...(names.has('accept-encoding') ? {} : { 'accept-encoding': 'gzip, deflate, br' }),
    ...(names.has('user-agent') ? {} : { 'user-agent': userAgent }),
    ...traced,
    ...headers,
  };
}

/**
 * The outbound client, on undici: per call it costs about a fifth of the CPU of axios over Node's
 * http module (measured with the example ERP: 80 against 200 µs per lookup, both sides in one
 * process), and an adapter's CPU goes mostly to its ERP calls.
 */
export function createHttpClient(options: { maxSockets?: number } = {}): HttpClient {
  // Keep-alive: an adapter talks to one ERP all day; a TCP (and TLS) handshake per call would dominate.
  const connections = options.maxSockets ?? 64;
  // An ERP's administrator reading their access log sees what called and which release.
  const userAgent = `adapter-engine/${engineVersion()}`;
  const agentOf = (connect?: Agent.Options['connect']): Agent =>
    new Agent({
      connections,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // The call's own timer (below) bounds headers and body together; undici's idle timers would
      // only cut it off earlier with another message.
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(connect ? { connect } : {}),
    });
  const plain = agentOf();
  // One agent per TLS setting of a mapping, so its connections are kept like the default ones.
  // Keyed by the settings' content, not the object: a reloaded mapping with the same TLS files reuses
  // the agent (and its open connections) instead of leaking one per reload.
  const tlsAgents = new Map<string, Agent>();
  const dispatcherFor = (spec: TlsSpec | undefined): Dispatcher => {
    if (spec === undefined) return plain;
    const key = createHash('sha256').update(JSON.stringify([spec.ca ?? null, spec.cert ?? null, spec.key?.reveal() ?? null, spec.insecureSkipVerify === true])).digest('hex');
    let agent = tlsAgents.get(key);
    if (!agent) {
      agent = agentOf({
        // A custom CA bundle adds to the public roots rather than replacing them (Node's `ca` replaces).
        ca: spec.ca === undefined ? undefined : [...tls.rootCertificates, spec.ca],
        cert: spec.cert,
        key: spec.key?.reveal(),
        rejectUnauthorized: !spec.insecureSkipVerify,
      });
      tlsAgents.set(key, agent);
    }
    return agent;
  };

  return {
    async send(request) {
      const started = performance.now();
      const wire = wireBody(request);
      // One timer bounds the whole call, headers and body: an ERP that sends its headers at once and
      // then one byte a second (or a chunked body that never ends) is cut off when the time is up.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), request.timeoutMs);
      // The platform left: the ERP's work for it is of no use any more.
      const abandon = () => controller.abort();
      if (request.signal?.aborted) abandon();
      request.signal?.addEventListener('abort', abandon, { once: true });
      let status: number;
      let headers: Record<string, string>;
      let data: Buffer;
      try {
        // Redirects are not followed (undici's request follows none): a redirect could carry
        // credentials to another host, and an ERP API that redirects is a configuration error the
        // integrator should see. No proxy is read from the environment either.
        const response = await undiciRequest(request.url, {
          method: request.method as Dispatcher.HttpMethod,
          headers: withEngineHeaders(outgoingHeaders(request), userAgent, request.trace),
          body: wire.text,
          dispatcher: dispatcherFor(request.tls),
          signal: controller.signal,
        });
        status = response.statusCode;
        headers = flattenHeaders(response.headers);
        // Compressed answers are read as their content (error pages too: their text is shown to people).
        data = await readCapped(decompressed(response.body, request.method, status, headers['content-encoding']), headers['content-length'], request.maxResponseBytes);
      } catch (error) {
        if (request.signal?.aborted) throw new RequestAbandoned(request.callName, true);
        const target = targetOf(request);
        if (controller.signal.aborted) throw new TransportError('TIMEOUT', `${target}: no answer within ${request.timeoutMs} ms (headers and body)`);
        if (error instanceof TooLarge) throw new TransportError('TOO_LARGE', `${target}: response larger than ${request.maxResponseBytes} bytes`);
        throw classify(error, request) ?? error;
      } finally {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', abandon);
      }
      const decoded = decodeBody(data, request.responseType, headers['content-type'] ?? '', status);
      return { status, headers, ...decoded, durationMs: performance.now() - started };
    },
    close() {
      // Open connections are dropped at once; the engine closes its client only when it ends.
      for (const agent of [plain, ...tlsAgents.values()]) agent.destroy().catch(() => undefined);
    },
  };
}
