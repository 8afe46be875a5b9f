import { Type } from '@sinclair/typebox';
import { block, boolean, expression, integer, oneOfWords, optional, secret, text, variant, variants, withDefault } from './declare';

/**
 * The connectivity settings: authentication, TLS, retries, pagination, fan-out and caching. Which fields
 * each auth type and pagination style takes is declared here, as one variant per type or style.
 */

export const auth = variants('type', [
  variant('type', 'none', 'No authentication.', {}),
  variant('type', 'basic', 'HTTP Basic authentication.', {
    username: text('The user name.'),
    password: secret('The password.'),
  }),
  variant('type', 'bearer', 'A fixed token sent as "Authorization: Bearer <token>".', {
    token: secret('The token.'),
  }),
  variant('type', 'apiKey', 'A key sent as a header or a query parameter.', {
    in: withDefault(oneOfWords(['header', 'query'], 'Send the key as a header or as a query parameter.'), 'header'),
    name: text('The header or query parameter name, e.g. X-Api-Key.'),
    value: secret('The key.'),
  }),
  variant('type', 'oauth2ClientCredentials', 'OAuth2 client credentials: a token fetched from tokenUrl, cached until it expires.', {
    tokenUrl: text('Absolute http(s) URL of the token endpoint.'),
    clientId: text('The client id.'),
    clientSecret: secret('The client secret.'),
    scope: optional(text('Scope to request.')),
    audience: optional(text('Audience to request (some identity providers need it).')),
    clientAuth: withDefault(oneOfWords(['basic', 'body'], 'Send the client credentials as an HTTP Basic header or as form fields.'), 'basic'),
  }),
  variant('type', 'oauth1', "OAuth 1.0a (RFC 5849) with a consumer and an access token, as NetSuite's token-based authentication (TBA), Magento and WooCommerce use it: every request is signed when it is sent, over its method, URL and every query parameter (the page parameters the engine writes too) and the fields of a form body, with a fresh nonce and timestamp on every attempt and every page.", {
    realm: optional(text('The realm sent in the Authorization header (not signed); NetSuite wants the account id, e.g. 1234567 or 1234567_SB1.')),
    consumerKey: text('The consumer key (NetSuite: of the integration record).'),
    consumerSecret: secret('The consumer secret.'),
    token: text('The access token (NetSuite: the token id).'),
    tokenSecret: secret("The access token's secret."),
    signatureMethod: withDefault(oneOfWords(['HMAC-SHA256', 'HMAC-SHA1', 'PLAINTEXT'], 'How the request is signed: HMAC-SHA256 (NetSuite accepts only this one), HMAC-SHA1 (older Magento and WooCommerce), or PLAINTEXT (the two secrets themselves; only over https).'), 'HMAC-SHA256'),
  }),
], 'How the engine authenticates toward the system (the ERP, or the platform under platform:). Secrets come from environment variables and never appear in logs or messages.');

export const csrf = block({
  header: withDefault(text('The header that carries the token.'), 'X-CSRF-Token'),
  fetchPath: withDefault(text('Path under system.baseUrl that a GET fetches a token from when a write comes before any read, e.g. / (the OData service root) or /$metadata.', { pattern: '^/' }), '/'),
}, { description: "SAP Gateway's CSRF protection: reads ask for a token (X-CSRF-Token: Fetch), every write (POST, PUT, PATCH, DELETE) carries it, and a 403 answered with X-CSRF-Token: Required fetches a new one and sends the write once more. One token per ERP connection, shared by all requests; needs cookies: session (the token belongs to the session)." });

export const tls = block({
  caFile: optional(text("PEM file with the CA certificates that sign the system's certificate (added to the machine's CAs). Relative to the mapping file.")),
  certFile: optional(text('PEM client certificate for mutual TLS; needs keyFile.')),
  keyFile: optional(text('PEM private key of the client certificate; needs certFile.')),
  insecureSkipVerify: withDefault(boolean('true turns certificate checking OFF (testing only). Logged as a warning at load and at start.'), false),
}, { description: 'TLS toward an https:// system (the ERP, or the platform): a custom CA bundle, a client certificate for mutual TLS.' });

const retryFields = {
  attempts: integer(1, 10, 'Total tries including the first (1 = no retry).'),
  baseDelayMs: integer(1, 60_000, 'First backoff delay in milliseconds; doubles each retry, with jitter.'),
  maxDelayMs: integer(1, 600_000, 'Longest backoff delay in milliseconds.'),
};

export const systemRetry = block({
  attempts: withDefault(retryFields.attempts, 1),
  baseDelayMs: withDefault(retryFields.baseDelayMs, 200),
  maxDelayMs: withDefault(retryFields.maxDelayMs, 5000),
  retryAfterMaxMs: withDefault(integer(0, 600_000, 'Longest Retry-After the engine honours, in milliseconds; a longer one ends the retries.'), 30_000),
  idempotent: optional(boolean('Whether every call is safe to repeat, unless the call says otherwise in its own retry.idempotent. Without it: GET calls are, others are not. true suits an ERP whose reads are all POST (SOAP, JSON-RPC, SuiteQL); a call that writes then says idempotent: false.')),
}, { description: 'Default retry policy of every call. Retries happen on transport failures, 429 and 503, only for requests safe to repeat.' });

export const callRetry = block({
  attempts: optional({ ...retryFields.attempts, description: `${retryFields.attempts.description} Default: system.retry.attempts.` }),
  baseDelayMs: optional({ ...retryFields.baseDelayMs, description: `${retryFields.baseDelayMs.description} Default: system.retry.baseDelayMs.` }),
  maxDelayMs: optional({ ...retryFields.maxDelayMs, description: `${retryFields.maxDelayMs.description} Default: system.retry.maxDelayMs.` }),
  idempotent: optional(boolean('Whether the call is safe to repeat. Default: system.retry.idempotent, else true for GET and false otherwise: a POST/PUT/PATCH/DELETE is only retried with idempotent: true.')),
}, { description: 'Retry policy of this call, over system.retry.' });

/** Where the page state goes: the styles whose state the engine writes (page, offset, cursor). */
const pageIn = withDefault(oneOfWords(['query', 'body'], 'query: the engine writes the page state (page number, offset and limit, cursor) into the query parameters named here. body: it writes none; the call\'s body and headers expressions read page.number, page.offset, page.limit and page.cursor (absent on the first page where there is none yet) and place them, for ERPs that take everything in the body (JSON-RPC, SOAP).'), 'query');

const pageCommon = {
  items: expression('The items of one page, over response (status, headers, body of the page), e.g. response.body.salesOrders. An empty page must give an empty list: giving nothing at all (a misspelt field) fails the request.'),
  maxPages: withDefault(integer(1, 100_000, 'Most pages fetched. More pages is an error, never a silent cut.'), 100),
};
/** For the styles whose end an expression gives (hasMore, next); a Link header is the ERP's own. */
const lastPageMayBeFull = withDefault(boolean('true: the ERP may end a list with a full page (pageSize items, or as many as the page before) whose next or hasMore gives nothing at all, and the engine takes that page as the last. Default false: such a page fails the request (PAGINATION_INCOMPLETE), because a misspelt next or hasMore also gives nothing and would end the list early without a trace. An explicit end (null, "", false, a short page) is always the last page.'), false);
const knownPageSize = integer(1, 100_000, 'How many items a full page of the ERP has, when known. It is not sent (put a size parameter under query: if the ERP takes one); with it, a first page that is full while next gives nothing is caught too (see lastPageMayBeFull).');
const hasMore = expression('Whether another page follows, over response, e.g. response.body.page < response.body.totalPages. Without it: the page was full (or, without pageSize, not empty).');

export const paginate = variants('style', [
  variant('style', 'page', 'A page number in a query parameter (or, with in: body, in the body).', {
    ...pageCommon,
    in: pageIn,
    pageParam: withDefault(text('The query parameter of the page number.'), 'page'),
    firstPage: withDefault(integer(0, 1, 'The number of the first page.'), 1),
    sizeParam: optional(text('The query parameter of the page size (needs pageSize).')),
    pageSize: optional(integer(1, 100_000, 'Items per page, sent as sizeParam.')),
    hasMore: optional(hasMore),
    lastPageMayBeFull,
  }),
  variant('style', 'offset', 'An offset and a limit in query parameters (or, with in: body, in the body).', {
    ...pageCommon,
    in: pageIn,
    pageSize: integer(1, 100_000, 'The limit: items per page.'),
    offsetParam: withDefault(text('The query parameter of the offset.'), 'offset'),
    limitParam: withDefault(text('The query parameter of the limit.'), 'limit'),
    hasMore: optional(hasMore),
    lastPageMayBeFull,
  }),
  variant('style', 'cursor', 'A cursor taken from each page and sent with the next request.', {
    ...pageCommon,
    in: pageIn,
    cursorParam: optional(text('The query parameter that carries the cursor (in: query); with in: body the body reads page.cursor.')),
    next: expression('The next cursor, over response; empty means last page.'),
    pageSize: optional(knownPageSize),
    lastPageMayBeFull,
  }),
  variant('style', 'nextLink', 'A next-page URL taken from each page.', {
    ...pageCommon,
    next: expression('The next URL (absolute or relative), over response; empty means last page.'),
    pageSize: optional(knownPageSize),
    lastPageMayBeFull,
  }),
  variant('style', 'linkHeader', 'The Link header of each page (rel="next").', { ...pageCommon }),
  variant('style', 'connection', 'A GraphQL connection (graphql calls): the items are its nodes (or edges[].node); pageInfo.endCursor goes to the next page as the variable after, until pageInfo.hasNextPage is false.', {
    connection: expression('The connection in one page, over response, e.g. response.body.data.orders (or, inside an element, response.body.data.order.lineItems). Giving nothing at all, or a connection without nodes or edges, fails the request rather than read an empty list.'),
    pageSize: optional(integer(1, 100_000, 'Items per page, sent as the variable first when the operation declares $first (otherwise the document writes first: itself).')),
    maxPages: pageCommon.maxPages,
  }),
], 'Fetch every page of a list. The call record then has items (all pages) and pages (count). A page that repeats the page before it (the same cursor or next link, or the same items) fails the request at once (PAGINATION_INCOMPLETE): an ERP that ignores the page state would otherwise give the first page until maxPages.');

export const forEach = block({
  list: expression('The list, e.g. input.workOrdersNumbers.'),
  chunk: optional(integer(1, 100_000, 'Elements per request; the templates then see chunk (a list) instead of item.')),
  maxConcurrency: withDefault(integer(1, 64, 'Requests of this call in flight at once; system.maxConcurrency still applies.'), 4),
  onError: withDefault(oneOfWords(['fail', 'skip'], 'fail: one failing element fails the request, naming the element; skip: leave failing elements out.'), 'fail'),
}, { description: 'Make this call once per element of a list (item) or per chunk of elements (chunk). The call record becomes a list of answers in input order.' });

export const cache = block({
  ttlMs: integer(1, 86_400_000, 'How long an answer stays valid, in milliseconds.'),
  maxEntries: withDefault(integer(1, 100_000, 'Most answers kept; the least recently used go first.'), 1000),
}, { description: 'Keep successful answers of this call in memory, keyed by method, URL, headers and body; credentials (system.auth, an OAuth 1.0a signature included) and the headers computed per attempt are not part of the key. Errors are never cached.' });

/**
 * How a system says "no" inside an answer whatever its HTTP status (JSON-RPC's {"error": ...} in a 200,
 * a SOAP fault, {"success": false}). Declared once under system: (or platform:), obeyed by every call.
 */
export const refusal = block({
  when: expression('Whether an answer is a refusal, whatever its HTTP status, over response (status, headers, body), e.g. $exists(response.body.error).'),
  message: optional(expression("The system's own words, given to the platform as externalMessage and kept with a dead letter, e.g. response.body.error.data.message.")),
  retryable: optional(expression('Over response: whether the refusal passes ("wait", "try later"). true: the call is tried again within its retry budget (retry.attempts; a POST only with retry.idempotent: true), after retryAfterMs, and an outbox delivery so refused is tried again later; otherwise it goes to the dead letters at once. Default: what the status says, as without the rule: an outbox delivery is tried again on 408, 429 and 5xx, dead otherwise (a refusal inside a 200 is final), and a direct call is not repeated.')),
  retryAfterMs: optional(expression('Over response: how long the system asks to wait before the next try, in milliseconds, e.g. (response.body.cost.requested - response.body.cost.available) / response.body.cost.restoreRate * 1000. Used when retryable gives true; without it (or when it gives nothing) the retry backoff applies. A wait longer than system.retry.retryAfterMaxMs, or past the operation\'s deadlineMs, is not waited: the call fails at once, saying the system asked to wait and for how long.')),
}, { description: "How this system refuses inside an answer, whatever the HTTP status. Every call obeys it: an answer it matches fails the call with the system's message, and is never cached; an outbox delivery is retried (retryable) or dead-lettered, never delivered. It is judged before the operation's own outcome rules: a rule may still give a refused answer a failure result (a \"not found\"), never the route's success." });

export const callRefusal = { ...refusal, description: "This call's own refusal rule instead of the system's, with the same fields; refusal: { when: 'false' } turns it off for this call." };

export const emptyValues = Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), {
  description: 'Answer values that mean "empty" in this system, e.g. [false, ""] for Odoo, which writes false for every empty field, or ["0001-01-01"] for NAV\'s blank date. An object field holding one of them is removed from the answer (JSON, or an XML answer\'s view) before any expression reads it, so $exists() and defaults work and $isoDateTime(false) never runs. Items of a list are kept as they are. Uploaded files obey it too: a CSV cell holding one is an empty cell, a JSON file\'s field holding one is absent. Default: none (the engine reads false as false).',
});

/**
 * A client-side budget of calls per system (a token bucket), so the engine paces itself before the
 * system says no: Shopify's cost points, a REST API's requests per second.
 */
export const rateLimit = block({
  capacity: Type.Number({ exclusiveMinimum: 0, description: 'Most points the bucket holds (the burst), e.g. 1000 for Shopify\'s cost points, or 10 for an API that allows 10 requests per second. It starts full.' }),
  refillPerSecond: Type.Number({ exclusiveMinimum: 0, description: 'Points restored each second, e.g. 50 (Shopify), or 10 for 10 requests per second.' }),
  cost: optional(expression('What one request costs, over request (method, path, query, headers, body of the request about to go out), input and the calls above it, e.g. $lookup({"OpenOrders": 232, "OrderLines": 53}, request.body.operationName). Default: 1 per request. A cost above capacity counts as capacity.')),
  observe: optional(expression('The level the system reports in its answers, over response, e.g. response.body.extensions.cost.throttleStatus.currentlyAvailable: after each answer the bucket holds that (less what requests still under way took), so the engine learns what other clients spent and what the system gave back. Default: the bucket counts alone.')),
}, { description: "Pace the calls to this system by a token bucket: a call waits (bounded by the operation's deadlineMs) until its cost fits, then takes it; retries and pages take theirs too. One bucket per system in each engine process, shared by all its requests. serve --workers N runs N processes and a deployment may run replicas, each with a bucket of its own: give each its share (capacity and refillPerSecond divided by their number)." });

/** A GraphQL call: one POST of {query, variables, operationName}, its document checked at load. */
export const graphql = block({
  document: text('The GraphQL document (a query or a mutation), usually a block scalar (document: |-). Parsed at load: a mistake is reported at its line and column in the mapping file. A document with several operations needs operationName.'),
  operationName: optional(text('Which operation of the document to run, sent as operationName.')),
  variables: optional(expression('The variables, over input, item and the calls above, e.g. {"name": input.Code}. With paginate.style: connection the engine adds after (and first, when the operation declares $first).')),
  schema: optional(text('The system\'s schema, to check the document against at load: an introspection result (.json, as a GraphQL client downloads it) or SDL (.graphql). Relative to the mapping file. An unknown field or argument is refused at load with the schema\'s suggestion ("Did you mean ...?").')),
}, { description: "Make this call a GraphQL request: POST {query, variables, operationName} as JSON to the call's path (method must be POST; no body). Its answer is judged as GraphQL: errors[] (or a plain-text errors, as in a 401) refuse the call with their messages and extensions.code; a THROTTLED error is waited for (the wait worked out from extensions.cost.throttleStatus) and asked again within the retry budget. A query is safe to repeat (retried like a GET); a mutation only with retry.idempotent: true. A refusal: of the call's own replaces these rules; system.refusal does not apply to graphql calls." });
