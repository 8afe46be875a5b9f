import { Type, type Static } from '@sinclair/typebox';
import { ROUTES } from '../../contract/routes';
import { DEFAULT_EXPRESSION_LIMITS } from '../../expressions/compile';
import { auth, cache, callRefusal, callRetry, csrf, emptyValues, forEach, graphql, paginate, rateLimit, refusal, systemRetry, tls } from './connectivity';
import { block, boolean, expression, integer, oneOfWords, optional, partial, template, text, withDefault } from './declare';
import { buildFileBlock } from './file';
import { inbound } from './inbound';
import { buildPushBlock, PUSH_NAME_PATTERN } from './push';

/**
 * Mapping format v1, declared once. Every later addition stays an optional key of an existing block, so
 * existing files keep loading. Built by a function because the file block reads the contract's schemas.
 */

const NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
const milliseconds = (description: string) => integer(1, 600_000, description);

const OPERATION_MODES = ['flow', 'static', 'acknowledge', 'file'] as const;
export type OperationMode = (typeof OPERATION_MODES)[number];

const queryEncoding = (description: string) => oneOfWords(['percent', 'form'], `percent: RFC 3986, every character but letters, digits and -._~ percent-encoded, a space as %20. form: as HTML forms, a space as +. ${description}`);

/** Every setting of a call but its name and use: a call has them, and so may a call template (system.calls). */
const callSettings = {
  when: optional(expression('Make this call only when this is true, over input and the calls above it, e.g. $not(calls.order.body.released). A call skipped this way has no record (calls.<name> gives nothing) and shows as skipped in dry-run and the request journal.')),
  method: oneOfWords(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], 'HTTP method.'),
  path: optional(template('Path under system.baseUrl, e.g. /sales-orders/{input.Code}. Placeholder values are URI-encoded, so they can never change the path. Every call has a path, or a url.')),
  url: optional(template('Instead of path: an absolute URL taken from an answer, e.g. {calls.variant.body.data.productVariants.nodes[0].image.url} (an image on the store\'s CDN). Its host must be one of system.assetHosts, checked on every request; it is fetched with the system\'s TLS settings, timeouts and size limits but without its credentials, and a redirect is followed only to another listed host.')),
  query: optional(Type.Record(Type.String(), template('Query parameter value.'), { description: 'Query parameters: name to value template. A placeholder giving nothing leaves the parameter out.' })),
  queryEncoding: optional(queryEncoding('How this call writes its query values. Default: system.queryEncoding.')),
  rawQuery: optional(Type.Array(text('A parameter name under query.'), { description: "Query parameters sent raw: the characters of OData's syntax ($ ( ) , : / = @ ; ! * ?) as they are, only spaces, &, #, +, % and characters a URL cannot hold encoded, e.g. [$filter, $orderby]. A placeholder's value can still never add a parameter; quote OData literals with $odataLiteral." })),
  headers: optional(Type.Record(Type.String(), template('Header value.'), { description: 'Extra headers for this call, on top of system.headers. A header that reads request (request.method, request.url, request.query: the request as it is sent, page parameters included), $now(), $millis(), $random() or $uuid() is computed anew for every attempt and every page and is no part of the cache key.' })),
  body: optional(expression('Builds the request body from input and earlier calls: JSON, or with requestType: xml or soap: the value written as XML (keys are element names, @name attributes, #text text, lists repeated elements, null left out).')),
  requestType: withDefault(oneOfWords(['json', 'xml'], 'How the body is written: json, or xml (the body value written as an XML document by the rules of system.xml, Content-Type application/xml unless headers set one). A soap: call is always XML.'), 'json'),
  bodyXml: optional(Type.String({ minLength: 1, description: 'The body as XML text with {placeholders} (JSONata, as in templates; {{ and }} are literal braces), e.g. an envelope copied from the vendor\'s documentation. Checked well-formed at load; a placeholder may stand only where a value is text (element content, attribute value), and every value is escaped, so it can never add markup. Instead of body.' })),
  soap: optional(block({
    version: oneOfWords(['1.1', '1.2'], 'SOAP 1.1 (text/xml, SOAPAction header) or 1.2 (application/soap+xml with the action parameter).'),
    action: optional(template('The operation\'s action URI, e.g. urn:microsoft-dynamics-schemas/page/salesorder:ReadMultiple.')),
  }, { description: 'A SOAP call: the body value is written inside the Envelope\'s Body (or bodyXml is the whole envelope), with the version\'s Content-Type and action. The answer is read as XML: response.result is the first element in the Body, response.fault a fault (code, string, detail) whatever the HTTP status; a fault no rule claims fails the call with its faultstring.' })),
  responseType: withDefault(oneOfWords(['json', 'text', 'binary', 'xml'], 'How to read the response body: json, text, binary (given to expressions as Base64), or xml (parsed into a JSON view by the rules of system.xml; a soap: call is always xml). An error answer (status 400 or more) of a binary call is read by its content type instead: JSON as JSON, text and XML as text, so outcome rules can read the ERP\'s error.'), 'json'),
  lists: optional(Type.Array(text('An element\'s local name.'), { description: 'XML answers: elements that are always lists, one element or many (an order with one line gives one SalesLine element).' })),
  timeoutMs: optional(milliseconds('Timeout of each attempt of this call, in milliseconds. Default: system.timeoutMs.')),
  retry: optional(callRetry),
  paginate: optional(paginate),
  forEach: optional(forEach),
  cache: optional(cache),
  refusal: optional(callRefusal),
  safe: withDefault(boolean('This call cannot change the ERP although its method is not GET: a SOAP Read, a SuiteQL or JSON-RPC search_read sent as POST. dry-run (without --live) and the studio send such a call; a call that can change the ERP is shown there, not sent. It says nothing about repeating the call (that is retry.idempotent).'), false),
  graphql: optional(graphql),
  userErrors: optional(expression('GraphQL calls: where the answer lists business refusals, over response.body, e.g. data.fulfillmentCreate.userErrors. A non-empty list fails the call with their messages (the platform\'s externalMessage), as a refusal that does not pass.')),
};

const call = block({
  name: Type.String({ pattern: NAME_PATTERN, description: 'Name of the call (letters, digits, _): later expressions read calls.<name>.status, .headers, .body.' }),
  use: optional(Type.String({ pattern: NAME_PATTERN, description: "A call template of system.calls whose settings this call takes. The call's own settings win: headers and query are merged name by name (the call's names win), every other setting the call has replaces the template's whole (retry, paginate, refusal…); body and bodyXml stand for one another. Calls to the ERP only (operations and system.session.login), not a push's calls to the platform." })),
  ...callSettings,
}, { description: 'One HTTP call to the external system. Its response is available to later calls and to the output as calls.<name>.', requiredUnless: { key: 'use', settings: ['method'] } });

/** Settings shared by calls: what `use: <name>` brings into a call; none is required, none has a default. */
const callTemplate = block(partial(callSettings), { description: 'A call template: any settings of a call (method, path, query, headers, body, retry, refusal, soap, responseType…) but its name, taken by every call that says use: <name>, whose own settings win.' });

const outcome = block({
  when: expression('Condition over response (status, headers, body of the call just made), call (its name), calls and input.'),
  result: text("A result name of this route, e.g. WorkOrderDoesNotExist. The engine turns it into the route's number."),
  message: optional(expression('Text for externalMessage, e.g. response.body.blockReason.')),
}, { description: 'Checked in order after every call; the first rule whose condition is true decides the result.' });

const outbox = block({
  orderingKey: optional(expression('Events with the same key are delivered one after another, in the order they were accepted, e.g. input.workOrderNumber. Default: one key for the whole operation (or push).')),
  maxAgeMs: withDefault(integer(60_000, 30 * 86_400_000, 'How long an event that the receiving system cannot take (unreachable, 408, 429, 5xx) is retried, in milliseconds, before it goes to the dead letters.'), 86_400_000),
  onDeadLetter: withDefault(oneOfWords(['block', 'skip'], 'What a dead event does to later events of its key: block holds them until support staff retry or drop it (a cancellation must not overtake the placement it cancels); skip lets them go.'), 'block'),
  tryFirstMs: optional(integer(1, 60_000, 'Operations only: once the event is stored, send it at once and wait this long (milliseconds, e.g. 3000) for the ERP. Its verdict in time is the platform\'s answer: success, or the refusal\'s result and message (the event is then settled refused, not a dead letter). Unreachable, a retryable status, or slower: the platform gets success and delivery goes on in the background. An event whose ordering key has an earlier event pending is not tried first.')),
}, { description: 'How outbox delivery orders and retries the events of this operation.' });

function buildOperation() {
  return block({
    mode: optional(oneOfWords(OPERATION_MODES, 'How the route is answered, stated explicitly: flow (calls, outcomes, output), static, acknowledge or file. Without it the engine reads the mode from the settings present; with it, the settings must agree.')),
    description: optional(Type.String({ description: 'Free text for people reading the mapping.' })),
    calls: optional(Type.Array(call, { description: 'HTTP calls made in order.' })),
    outcomes: optional(Type.Array(outcome, { description: 'Ordered outcome rules.' })),
    output: optional(expression('Builds the data of the answer from input and calls (data routes only).')),
    static: optional(Type.Unknown({ description: 'A fixed data answer, checked against the contract at load (data routes only).' })),
    acknowledge: optional(Type.Literal(true, { description: 'Event routes only: answer success without forwarding anything.' })),
    file: optional(buildFileBlock()),
    deadlineMs: optional(milliseconds('Overall time budget of one contract request over all its calls, retries and pages; past it the answer is AdapterApiClientFailed.')),
    onInvalidRecord: withDefault(oneOfWords(['fail', 'skip'], 'List routes answered by calls + output: what a record (a work order, an item) that does not match the contract does to the answer. fail: the whole answer is a failure (WorkOrderInvalid, or OperationFailed where the route has no such result), so nothing wrong reaches the warehouse and someone must fix the mapping or the ERP data. skip: that record is left out of the list, with a warning in the log naming it and why, and counted in adapter_records_skipped_total; the other records are answered.'), 'fail'),
    delivery: withDefault(oneOfWords(['direct', 'outbox'], 'Event routes: direct forwards the event while the platform waits and answers what the ERP said; outbox stores it durably, answers success at once, and delivers it in the background, retrying while the ERP is down.'), 'direct'),
    outbox: optional(outbox),
  }, { description: 'How one contract route is answered: calls (+ outcomes + output), output alone, static, acknowledge, or file.' });
}

const healthCheck = block({
  path: text('Path under system.baseUrl answered by a GET, e.g. /health. Any answer below 500 counts as reachable.', { pattern: '^/' }),
  timeoutMs: withDefault(milliseconds('How long the check waits for an answer, in milliseconds.'), 2000),
}, { description: "Ask the ERP in the engine's readiness check (/health/ready on the admin port): the engine is not ready while the ERP does not answer. Checked at most every few seconds, whatever the probe rate." });

/** The connectivity of a system the engine calls: the ERP under system:, the platform under platform:. */
const connectivity = {
  baseUrl: text('Absolute http(s) URL every call path is appended to. ${VAR} reads an environment variable.'),
  headers: optional(Type.Record(Type.String(), Type.String(), { description: 'Headers sent with every call.' })),
  timeoutMs: withDefault(milliseconds('Default timeout of a call, in milliseconds.'), 10_000),
  maxResponseBytes: withDefault(integer(1024, undefined, 'Largest response body accepted, in bytes (of the content: a compressed answer counts as unpacked).'), 52_428_800),
  auth: withDefault(auth, { type: 'none' }),
  tls: optional(tls),
  queryEncoding: withDefault(queryEncoding('The default of every call.'), 'percent'),
  cookies: withDefault(oneOfWords(['none', 'session'], 'none: cookies the ERP sets are ignored. session: they are kept per ERP connection (in memory, by domain and path, until they expire) and sent back with every call, as a browser would; for ERPs that keep a login or a CSRF token in a session cookie (SAP Gateway).'), 'none'),
  csrf: optional(csrf),
  retry: withDefault(systemRetry, {} as Static<typeof systemRetry>),
  maxConcurrency: withDefault(integer(1, 1024, 'Most requests in flight to the system at once, over all requests.'), 16),
  idempotencyHeader: withDefault(Type.Union([text('Header name.'), Type.Literal(false)], {
    description: 'The header that carries the event id on every delivery attempt of an outbox event, so a system that supports idempotency keys drops a repeated delivery; false sends none.',
  }), 'Idempotency-Key'),
  requestIdHeader: withDefault(Type.Union([text('Header name.'), Type.Literal(false)], {
    description: "The header that carries the request's id on every call, so one request can be followed across both logs; false sends none.",
  }), 'X-Request-Id'),
  refusal: optional(refusal),
  rateLimit: optional(rateLimit),
  emptyValues: optional(emptyValues),
  assetHosts: optional(Type.Array(text('A host name, e.g. cdn.shopify.com (with :port when not the default).'), { description: 'Hosts besides system.baseUrl\'s that a call\'s url may fetch from: an absolute URL taken from an answer (a product image on a CDN). Only these hosts, never with the system\'s credentials; a redirect to a host not listed is not followed.' })),
  xml: optional(block({
    namespaces: withDefault(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$' }), text('A namespace URI.'), { description: 'Prefixes of this mapping: prefix → namespace URI. Written XML uses them; read XML is matched by URI, never by the prefix the system happened to write.' }), {}),
    prefixedKeys: withDefault(boolean('true: keys of read XML are prefix:local with the prefixes declared here (needed when two siblings share a local name in different namespaces). Default false: keys are local names.'), false),
  }, { description: 'How XML is written and read for this system (requestType: xml, responseType: xml, soap:).' })),
};

const session = block({
  login: call,
  value: expression('What the login answer keeps, over response, e.g. response.body.result (a uid) or {"id": response.body.sessionId}. Every expression of this system\'s calls reads it as session.'),
  ttlMs: optional(integer(1000, 86_400_000, 'How long a session lasts, in milliseconds; the next call after that logs in again. Default: until the system says it ended (renewWhen).')),
  renewWhen: optional(expression('Over response of any call: the session has ended (e.g. response.body.error.data.name = "odoo.http.SessionExpiredException"). The engine logs in again once and sends that call once more.')),
}, { description: 'A login step: made before the first call of this connection (and again when it expires or renewWhen says it ended), its answer kept per connection and read by every expression as session. One login at a time, shared by all requests.' });

const system = block({
  ...connectivity,
  healthCheck: optional(healthCheck),
  session: optional(session),
  calls: optional(Type.Record(Type.String({ pattern: NAME_PATTERN }), callTemplate, { description: 'Call templates by name: settings that many calls share (a JSON-RPC envelope, a header, a refusal rule), written once; a call takes them with use: <name>.' })),
}, { description: 'The external system (ERP).' });

/** The same settings, read by the same code; no health check: pushes are stored while the platform is away. */
const platform = block(connectivity, { description: "The warehouse platform's integration interface, which push endpoints deliver to: the same settings as system:." });

const limits = block({
  expressionTimeoutMs: withDefault(milliseconds('Longest time one expression may run, in milliseconds: its own running time, not the time it waited while other requests ran, so a busy server does not fail expressions that are fast alone.'), DEFAULT_EXPRESSION_LIMITS.timeoutMs),
  expressionWallTimeoutMs: withDefault(milliseconds('Longest wall-clock time one expression may take, waits for other requests included, in milliseconds; at least expressionTimeoutMs. Past it the server is overloaded and the request fails rather than wait on.'), DEFAULT_EXPRESSION_LIMITS.wallTimeoutMs ?? 30_000),
  expressionMaxDepth: withDefault(integer(10, undefined, 'Deepest recursion an expression may reach.'), DEFAULT_EXPRESSION_LIMITS.maxDepth),
  expressionMaxSequence: withDefault(integer(1000, undefined, 'Longest sequence an expression may build.'), DEFAULT_EXPRESSION_LIMITS.maxSequence),
}, { description: 'Guardrails for JSONata expressions.' });

export function buildMappingFormat() {
  const operation = buildOperation();
  const operations = Object.fromEntries(ROUTES.map((route) => [route.operationId, optional({ ...operation, description: `${route.method} ${route.path}: ${route.summary}.` })]));
  return block({
    version: Type.Literal(1, { description: 'Mapping format version. Always 1.' }),
    name: text('Name of the customer or mapping, shown in logs.'),
    description: optional(Type.String({ description: 'Free text for people reading the mapping.' })),
    system,
    inbound: withDefault(inbound, { auth: { type: 'none' } }),
    limits: withDefault(limits, {} as Static<typeof limits>),
    functions: optional(Type.Record(Type.String({ pattern: NAME_PATTERN }), expression('A function, e.g. function($order) { {"number": $order.docNo} }; every expression of the mapping can call it as $<name>.'), {
      description: 'Reusable JSONata functions of this mapping (no JavaScript). A function may call the functions defined above it.',
    })),
    operations: block(operations, { description: 'One entry per contract route the mapping answers.' }),
    platform: optional(platform),
    push: optional(Type.Record(Type.String({ pattern: PUSH_NAME_PATTERN }), buildPushBlock(call, outbox), { description: 'Push endpoints: the ERP pushes to POST /push/<name>, the engine delivers to the platform. Needs platform:.' })),
  }, { description: 'Adapter engine mapping file, format v1.' });
}

export type OperationDocument = Static<ReturnType<typeof buildOperation>>;
export type CallDocument = Static<typeof call>;
export type OutcomeDocument = Static<typeof outcome>;
export type SystemDocument = Static<typeof system>;
export type PlatformDocument = Static<typeof platform>;
export type PushDocument = Static<ReturnType<typeof buildPushBlock<typeof call, typeof outbox>>>;
export type AuthDocument = Static<typeof auth>;
export type InboundDocument = Static<typeof inbound>;
export type TlsDocument = Static<typeof tls>;
export type CallRetryDocument = Static<typeof callRetry>;
export type PaginateDocument = Static<typeof paginate>;
export type ForEachDocument = Static<typeof forEach>;
export type CacheDocument = Static<typeof cache>;
export type OutboxDocument = Static<typeof outbox>;
export type RefusalDocument = Static<typeof refusal>;
export type SessionDocument = Static<typeof session>;
/** A mapping document once the structure check passed and the defaults are applied. */
export type MappingDocument = Static<ReturnType<typeof buildMappingFormat>>;
