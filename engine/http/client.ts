import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import axios, { AxiosError, type AxiosInstance } from 'axios';
import type { ResponseType, TlsSpec } from '../mapping/model';
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

/** The headers that go on the wire; the CLI's dry run shows exactly these. */
export function outgoingHeaders(request: OutboundRequest): Record<string, string> {
  const contentType = request.form !== undefined ? 'application/x-www-form-urlencoded' : request.body !== undefined ? 'application/json' : undefined;
  return { ...(contentType ? { 'content-type': contentType } : {}), ...request.headers };
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

const TLS_CODES = /CERT|SELF_SIGNED|TLS|SSL|EPROTO|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function classify(error: AxiosError, request: OutboundRequest): TransportError {
  const code = error.code ?? '';
  const target = `${request.method} ${request.url.origin}${request.url.pathname}`;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ERR_CANCELED') {
    return new TransportError('TIMEOUT', `${target}: no answer within ${request.timeoutMs} ms`);
  }
  if (code === 'ECONNREFUSED') return new TransportError('REFUSED', `${target}: connection refused`);
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(error.message)) return new TransportError('RESET', `${target}: connection reset by the server`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new TransportError('DNS', `${target}: host name not found`);
  if (TLS_CODES.test(code)) return new TransportError('TLS', `${target}: TLS failure (${code})`);
  if (/maxContentLength/i.test(error.message)) return new TransportError('TOO_LARGE', `${target}: response larger than ${request.maxResponseBytes} bytes`);
  return new TransportError('NETWORK', `${target}: ${code || error.message}`);
}

/** Shared with the CLI's recorded answers, so a recorded text body is read exactly as a live one. */
/** Content types that say the answer is text (an error page, a JSON error) rather than the bytes a binary call asked for. */
const TEXT_CONTENT = /^\s*(text\/|application\/(json|xml|problem\+json|problem\+xml|xhtml\+xml|javascript)\b|application\/[\w.+-]*\+(json|xml)\b)/i;

function preview(text: string): string {
  return `"${text.slice(0, 80).replace(/\s+/g, ' ')}${text.length > 80 ? '…' : ''}"`;
}

/** The bodyError of an empty answer (status other than 204) to a JSON call. */
export const EMPTY_BODY = 'the answer has an empty body; a JSON body was expected';

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

export function createHttpClient(options: { maxSockets?: number } = {}): HttpClient {
  // Keep-alive: an adapter talks to one ERP all day; a TCP (and TLS) handshake per call would dominate.
  const maxSockets = options.maxSockets ?? 64;
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets });
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets });
  // One agent per TLS setting of a mapping, so its connections are pooled like the default ones.
  // Keyed by the settings' content, not the object: a reloaded mapping with the same TLS files reuses
  // the agent (and its open connections) instead of leaking one agent per reload.
  const tlsAgents = new Map<string, https.Agent>();
  const agentFor = (spec: TlsSpec): https.Agent => {
    const key = createHash('sha256').update(JSON.stringify([spec.ca ?? null, spec.cert ?? null, spec.key?.reveal() ?? null, spec.insecureSkipVerify === true])).digest('hex');
    let agent = tlsAgents.get(key);
    if (!agent) {
      agent = new https.Agent({
        keepAlive: true,
        maxSockets,
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
  const instance: AxiosInstance = axios.create({
    httpAgent,
    httpsAgent,
    proxy: false,
    // Redirects are not followed: a redirect could carry credentials to another host, and an ERP API
    // that redirects is a configuration error the integrator should see.
    maxRedirects: 0,
    responseType: 'arraybuffer',
    validateStatus: () => true,
    decompress: true,
    transitional: { clarifyTimeoutError: false },
  });

  return {
    async send(request) {
      const started = performance.now();
      const form = request.form ? new URLSearchParams(request.form as Record<string, string>).toString() : undefined;
      const hasBody = request.body !== undefined;
      // axios's `timeout` is the socket's idle time: an ERP that sends its headers at once and then one
      // byte a second (or a chunked body that never ends) is never idle and was never timed out. The
      // timer below bounds the whole call, headers and body, and aborts it when the time is up.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), request.timeoutMs);
      // The platform left: the ERP's work for it is of no use any more.
      const abandon = () => controller.abort();
      if (request.signal?.aborted) abandon();
      request.signal?.addEventListener('abort', abandon, { once: true });
      let response;
      try {
        response = await instance.request<Buffer>({
          method: request.method,
          url: request.url.href,
          headers: outgoingHeaders(request),
          data: form ?? (hasBody ? JSON.stringify(request.body) : undefined),
          ...(request.tls ? { httpsAgent: agentFor(request.tls) } : {}),
          timeout: request.timeoutMs,
          maxContentLength: request.maxResponseBytes,
          maxBodyLength: Infinity,
          signal: controller.signal,
        });
      } catch (error) {
        if (request.signal?.aborted) throw new RequestAbandoned(request.callName, true);
        if (controller.signal.aborted) throw new TransportError('TIMEOUT', `${request.method} ${request.url.origin}${request.url.pathname}: no answer within ${request.timeoutMs} ms (headers and body)`);
        if (error instanceof AxiosError) throw classify(error, request);
        throw error;
      } finally {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', abandon);
      }
      const headers = flattenHeaders(response.headers as Record<string, unknown>);
      const decoded = decodeBody(Buffer.from(response.data ?? []), request.responseType, headers['content-type'] ?? '', response.status);
      return { status: response.status, headers, ...decoded, durationMs: performance.now() - started };
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
      for (const agent of tlsAgents.values()) agent.destroy();
    },
  };
}
