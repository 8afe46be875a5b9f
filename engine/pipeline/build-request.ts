import { OperationFailure } from '../errors';
import { isAssetHost } from '../http/asset';
import type { OutboundRequest } from '../http/client';
import { encodeQueryName, encodeQueryValue, encodeRawLiteral, withQueryPairs } from '../http/query-encoding';
import type { CallSpec, GraphqlSpec, SystemSpec, Template } from '../mapping/model';
import type { ExpressionContext } from './context';
import { XmlError } from '../xml/errors';
import { soapEnvelope } from '../xml/soap';
import { fillXmlTemplate } from '../xml/template';
import { writeXml } from '../xml/write';
import type { TraceObserver } from '../trace/observer';
import { evaluateSeen } from './evaluate-seen';

/**
 * Builds the outbound request of one call. The path can only ever grow the base URL's path: placeholder
 * values are URI-encoded (a `/` becomes `%2F`), and the finished URL is checked to still sit under it.
 */

type Rendered = string | undefined | string[];

function scalarText(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new OperationFailure('REQUEST_INVALID', `${what} gave ${JSON.stringify(value)}; expected text or a number`);
}

/**
 * A template that is one placeholder may give nothing (the parameter is left out) or a list (repeated).
 * `encode` applies to placeholder values, `literal` to the template's own text.
 */
async function render(template: Template, context: ExpressionContext, what: string, observer: TraceObserver | undefined, encode: (text: string) => string, literal: (text: string) => string = (text) => text): Promise<Rendered> {
  const sole = template.parts.length === 1 && typeof template.parts[0] !== 'string' ? template.parts[0] : undefined;
  if (sole) {
    const value = await evaluateSeen(sole, context, what, observer);
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value)) return value.map((item) => encode(scalarText(item, what)));
    return encode(scalarText(value, what));
  }
  let text = '';
  for (const part of template.parts) {
    if (typeof part === 'string') {
      text += literal(part);
      continue;
    }
    const value = await evaluateSeen(part, context, what, observer);
    if (value === undefined || value === null) {
      throw new OperationFailure('REQUEST_INVALID', `${what}: the placeholder {${part.source}} gave no value`, [{ path: what, message: `the placeholder {${part.source}} gave no value` }]);
    }
    text += encode(scalarText(value, what));
  }
  return text;
}

/**
 * A template without placeholders (a call's usual path, `/jsonrpc`): its text as render gives it, with no
 * promise to wait for; undefined when it has placeholders.
 */
function fixedText(template: Template): string | undefined {
  let text = '';
  for (const part of template.parts) {
    if (typeof part !== 'string') return undefined;
    text += part;
  }
  return text;
}

function encodePathValue(value: string): string {
  if (value === '' || value === '.' || value === '..') {
    throw new OperationFailure('REQUEST_INVALID', `"${value}" cannot be placed into a URL path`, [{ path: 'path', message: `"${value}" cannot be used as a path segment` }]);
  }
  return encodeURIComponent(value);
}

export function joinUnderBase(base: URL, encodedPath: string, callName: string): URL {
  const basePath = base.pathname.replace(/\/+$/, '');
  const url = new URL(base.origin + basePath + encodedPath);
  // The URL parser resolves dot segments (also %2E-encoded ones); if anything moved, refuse.
  if (url.origin !== base.origin || url.pathname !== basePath + encodedPath || !url.pathname.startsWith(`${basePath}/`)) {
    throw new OperationFailure('REQUEST_INVALID', `call ${callName}: the path ${encodedPath} would leave ${base.href}`, [{ path: `calls.${callName}.path`, message: 'the request would leave the configured base URL' }]);
  }
  return url;
}

/**
 * What an HTTP header value cannot hold (RFC 9110: visible characters, spaces and tabs, bytes 0x80-0xFF):
 * a line break would let the text (often the platform's input) write headers of its own. Refused here,
 * as the request is built, so every such value gets the same answer and message, whatever the client.
 */
function unsendableInHeader(text: string): string | undefined {
  const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(text);
  if (!bad) return undefined;
  const char = bad[0];
  if (char === '\r' || char === '\n') return 'a line break';
  return `the character U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at position ${bad.index + 1}`;
}

/** Whether the call's body goes as XML (requestType: xml, soap:, bodyXml:). */
function writesXml(call: CallSpec): boolean {
  return Boolean(call.soap) || Boolean(call.bodyXml) || call.requestType === 'xml';
}

/**
 * The body as XML text of a call that writes XML (writesXml), with the headers that go with it. A value
 * XML cannot hold fails the request, naming the field; a bodyXml placeholder's value is escaped for its
 * place, so it can never add markup.
 */
async function xmlBody(call: CallSpec, system: SystemSpec, context: ExpressionContext, value: unknown, observer: TraceObserver | undefined): Promise<{ body: unknown; xmlHeaders: Record<string, string> }> {
  const label = `calls.${call.name}`;
  const { namespaces } = system.xml;
  try {
    let text: string | undefined;
    if (call.bodyXml) {
      const values: unknown[] = [];
      for (const part of call.bodyXml) if (typeof part !== 'string') values.push(await evaluateSeen(part.expression, context, `${label}.bodyXml`, observer));
      text = fillXmlTemplate(call.bodyXml.map((part) => (typeof part === 'string' ? part : { expression: part.expression.source, context: part.context, line: part.expression.origin.line, column: part.expression.origin.col })), values);
    }
    if (call.soap) {
      const action = call.soap.action ? await render(call.soap.action, context, `${label}.soap.action`, observer, (t) => t) : undefined;
      const envelope = soapEnvelope(call.bodyXml ? undefined : value, { version: call.soap.version, action: typeof action === 'string' ? action : undefined, namespaces });
      return { body: text ?? envelope.body.toString('utf8'), xmlHeaders: { ...envelope.headers } };
    }
    return { body: text ?? writeXml(value, { namespaces }), xmlHeaders: { 'Content-Type': 'application/xml; charset=utf-8' } };
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    const where = error.path ? `${label}.body${error.path.startsWith('{') ? ` ${error.path}` : `.${error.path}`}` : `${label}.body`;
    throw new OperationFailure('REQUEST_INVALID', `${where}: ${error.reason}`, [{ path: where, message: error.reason }]);
  }
}

/**
 * A GraphQL call's body: the document, its variables and the operation's name. A connection's page state
 * goes in as the variables after (the cursor, once there is one) and first (the page size), when the
 * operation declares them.
 */
async function graphqlBody(spec: GraphqlSpec, context: ExpressionContext, label: string, observer: TraceObserver | undefined): Promise<Record<string, unknown>> {
  const given = spec.variables ? await evaluateSeen(spec.variables, context, `${label}.graphql.variables`, observer) : undefined;
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    const message = `${label}.graphql.variables gave ${JSON.stringify(given)}; it must give an object of variables, e.g. {"name": input.Code}`;
    throw new OperationFailure('TRANSFORM_FAILED', message, [{ path: `${label}.graphql.variables`, message }]);
  }
  const variables: Record<string, unknown> = { ...(given as Record<string, unknown> | undefined) };
  const { page } = context;
  if (page?.cursor !== undefined && spec.declares.includes('after')) variables.after = page.cursor;
  if (page?.limit !== undefined && spec.declares.includes('first')) variables.first = page.limit;
  return { query: spec.document, variables, ...(spec.operationName === undefined ? {} : { operationName: spec.operationName }) };
}

/**
 * A call's url: an absolute URL the answer gave (an image on a CDN). It comes from the ERP's data, so a
 * host not in system.assetHosts fails the call as an answer the engine cannot use, never fetched.
 */
async function assetUrl(call: CallSpec, system: SystemSpec, context: ExpressionContext, observer: TraceObserver | undefined): Promise<URL> {
  const what = `calls.${call.name}.url`;
  const text = await render(call.path, context, what, observer, (value) => value);
  let url: URL | undefined;
  try {
    url = typeof text === 'string' ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  if (!url) throw new OperationFailure('ERP_BODY_UNREADABLE', `${what} gave ${JSON.stringify(text) ?? 'nothing'}, not an absolute URL`, [{ path: what, message: 'the url taken from the answer is not an absolute URL' }]);
  if (!isAssetHost(url, system.assetHosts)) {
    const message = `${what} is on ${url.host}, which is not in system.assetHosts (${system.assetHosts.join(', ')}); it is not fetched`;
    throw new OperationFailure('ERP_BODY_UNREADABLE', message, [{ path: what, message }]);
  }
  return url;
}

async function renderHeaders(call: CallSpec, templates: CallSpec['headers'], context: ExpressionContext, observer: TraceObserver | undefined): Promise<Record<string, string>> {
  const label = `calls.${call.name}`;
  const headers: Record<string, string> = {};
  for (const [name, template] of templates) {
    const value = await render(template, context, `${label}.headers.${name}`, observer, (text) => text);
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    const unsendable = unsendableInHeader(text);
    if (unsendable) throw new OperationFailure('REQUEST_INVALID', `${label}.headers.${name} contains ${unsendable}, which a header cannot carry`);
    headers[name] = text;
  }
  return headers;
}

/** The request as header expressions read it (`request`): its method, its URL as sent, and its query parameters, decoded. */
function requestView(request: OutboundRequest): { readonly method: string; readonly url: string; readonly query: Record<string, string | string[]> } {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(request.url.searchParams.keys())) {
    const values = request.url.searchParams.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return { method: request.method, url: request.url.href, query };
}

/**
 * The call's headers that change on each attempt (call.attemptHeaders: they read `request`, a clock or
 * a random source) over the request as it goes out now, its final URL with the page's parameters:
 * computed again for every attempt and every page, so a retry never repeats a nonce.
 */
export async function withAttemptHeaders(call: CallSpec, request: OutboundRequest, context: ExpressionContext, observer?: TraceObserver): Promise<OutboundRequest> {
  if (call.attemptHeaders.length === 0) return request;
  const templates = call.headers.filter(([name]) => call.attemptHeaders.includes(name));
  const headers = await renderHeaders(call, templates, { ...context, request: requestView(request) }, observer);
  // Left out when they give nothing, as any header; a name the build already set is replaced.
  const kept = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !call.attemptHeaders.includes(name)));
  return { ...request, headers: { ...kept, ...headers } };
}

/** `observer`: told each expression's input and output when it asks (dry runs, the studio). */
export async function buildRequest(call: CallSpec, system: SystemSpec, context: ExpressionContext, observer?: TraceObserver): Promise<OutboundRequest> {
  const label = `calls.${call.name}`;
  // What has nothing to evaluate (a fixed path, no headers of the call's own, a JSON body) is not waited for.
  const path = call.absolute ? undefined : (fixedText(call.path) ?? (await render(call.path, context, `${label}.path`, observer, encodePathValue)));
  if (!call.absolute && typeof path !== 'string') {
    throw new OperationFailure('REQUEST_INVALID', `${label}.path gave no value`, [{ path: `${label}.path`, message: 'the path gave no value' }]);
  }
  const pairs: string[] = [];
  for (const [name, template] of call.query) {
    const raw = call.rawQuery.includes(name);
    const value = await render(template, context, `${label}.query.${name}`, observer, (text) => encodeQueryValue(text, raw ? 'raw' : call.queryEncoding), raw ? encodeRawLiteral : (text) => encodeQueryValue(text, call.queryEncoding));
    for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value]) pairs.push(`${encodeQueryName(name)}=${item}`);
  }
  const url = withQueryPairs(call.absolute ? await assetUrl(call, system, context, observer) : joinUnderBase(system.baseUrl, path as string, call.name), pairs);
  // A url from an answer goes to another host (system.assetHosts): the system's own headers stay with the system.
  const headers: Record<string, string> = call.absolute ? {} : Object.fromEntries(system.headers);
  const own = call.headers.filter(([name]) => !call.attemptHeaders.includes(name));
  if (own.length > 0) Object.assign(headers, await renderHeaders(call, own, context, observer));
  const value = call.graphql ? await graphqlBody(call.graphql, context, label, observer) : call.body ? await evaluateSeen(call.body, context, `${label}.body`, observer) : undefined;
  // Any other body goes as its JSON value, without waiting on a promise for it.
  const { body, xmlHeaders } = writesXml(call) ? await xmlBody(call, system, context, value, observer) : { body: value, xmlHeaders: {} };
  // The mapping's own headers win over the ones XML brings (any letter case).
  for (const [name, text] of Object.entries(xmlHeaders)) if (!Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase())) headers[name] = text;
  return {
    callName: call.name,
    method: call.method,
    url,
    headers,
    body,
    timeoutMs: call.timeoutMs,
    responseType: call.responseType,
    maxResponseBytes: system.maxResponseBytes,
  };
}
