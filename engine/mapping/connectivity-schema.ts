/**
 * JSON Schema fragments of the connectivity settings of format v1: authentication, TLS, retries,
 * concurrency, pagination, fan-out and caching. Which fields go with which `type`/`style` is checked
 * by the compiler (compile-connectivity.ts), which can say so in plain words.
 */

const expression = (description: string) => ({ type: 'string', minLength: 1, description: `JSONata expression. ${description}` });
const text = (description: string) => ({ type: 'string', minLength: 1, description });
const secret = (description: string) => text(`${description} A secret: write it as \${VAR} so it comes from an environment variable.`);
const count = (minimum: number, maximum: number, description: string) => ({ type: 'integer', minimum, maximum, description });

export const authSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  description: 'How the engine authenticates toward the ERP. Secrets come from environment variables and never appear in logs or messages.',
  properties: {
    type: { enum: ['none', 'basic', 'bearer', 'apiKey', 'oauth2ClientCredentials'], description: 'none (default), basic (HTTP Basic), bearer (fixed token), apiKey (header or query parameter), oauth2ClientCredentials (token fetched from tokenUrl and cached).' },
    username: text('basic: the user name.'),
    password: secret('basic: the password.'),
    token: secret('bearer: the token sent as "Authorization: Bearer <token>".'),
    in: { enum: ['header', 'query'], description: 'apiKey: send the key as a header (default) or as a query parameter.' },
    name: text('apiKey: the header or query parameter name, e.g. X-Api-Key.'),
    value: secret('apiKey: the key.'),
    tokenUrl: text('oauth2ClientCredentials: absolute URL of the token endpoint.'),
    clientId: text('oauth2ClientCredentials: the client id.'),
    clientSecret: secret('oauth2ClientCredentials: the client secret.'),
    scope: text('oauth2ClientCredentials: scope to request (optional).'),
    audience: text('oauth2ClientCredentials: audience to request (optional; some identity providers need it).'),
    clientAuth: { enum: ['basic', 'body'], description: 'oauth2ClientCredentials: send the client credentials as an HTTP Basic header (default) or as form fields.' },
  },
};

export const tlsSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'TLS toward an https:// ERP: a custom CA bundle, a client certificate for mutual TLS.',
  properties: {
    caFile: text('PEM file with the CA certificates that sign the ERP certificate (added to the system CAs).'),
    certFile: text('PEM client certificate for mutual TLS; needs keyFile.'),
    keyFile: text('PEM private key of the client certificate; needs certFile.'),
    insecureSkipVerify: { type: 'boolean', description: 'true turns certificate checking OFF (testing only). Logged as a warning at load and at start.' },
  },
};

const retryFields = {
  attempts: count(1, 10, 'Total tries including the first (1 = no retry).'),
  baseDelayMs: count(1, 60000, 'First backoff delay in ms; doubles each retry, with jitter (default 200).'),
  maxDelayMs: count(1, 600000, 'Longest backoff delay in ms (default 5000).'),
};

export const systemRetrySchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Default retry policy of every call. Retries happen on transport failures, 429 and 503, only for requests safe to repeat.',
  properties: {
    ...retryFields,
    retryAfterMaxMs: count(0, 600000, 'Longest Retry-After the engine honours in ms (default 30000); a longer one ends the retries.'),
  },
};

export const callRetrySchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Retry policy of this call, over system.retry.',
  properties: {
    ...retryFields,
    idempotent: { type: 'boolean', description: 'Whether the call is safe to repeat. Default true for GET, false otherwise: a POST/PUT/PATCH/DELETE is only retried with idempotent: true.' },
  },
};

export const paginateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['style', 'items'],
  description: 'Fetch every page of a list. The call record then has items (all pages) and pages (count).',
  properties: {
    style: { enum: ['page', 'offset', 'cursor', 'nextLink', 'linkHeader'], description: 'page (page number), offset (offset/limit), cursor (a cursor from the body), nextLink (a next URL from the body), linkHeader (the Link header, rel="next").' },
    items: expression('The items of one page, over { status, headers, body }, e.g. body.salesOrders.'),
    maxPages: count(1, 100000, 'Most pages fetched (default 100). More pages is an error, never a silent cut.'),
    pageParam: text('page: the query parameter of the page number (default page).'),
    firstPage: count(0, 1, 'page: the number of the first page (default 1).'),
    sizeParam: text('page: the query parameter of the page size (optional, with pageSize).'),
    pageSize: count(1, 100000, 'page: items per page (sent as sizeParam); offset: the limit (required).'),
    offsetParam: text('offset: the query parameter of the offset (default offset).'),
    limitParam: text('offset: the query parameter of the limit (default limit).'),
    cursorParam: text('cursor: the query parameter that carries the cursor (required).'),
    hasMore: expression('page, offset: whether another page follows, over { status, headers, body }, e.g. body.page < body.totalPages. Default: the page was full (or, without pageSize, not empty).'),
    next: expression('cursor: the next cursor; nextLink: the next URL (absolute or relative). Empty means last page.'),
  },
};

export const forEachSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['list'],
  description: 'Make this call once per element of a list (item) or per chunk of elements (chunk). The call record becomes a list of answers in input order.',
  properties: {
    list: expression('The list, e.g. input.workOrdersNumbers.'),
    chunk: count(1, 100000, 'Elements per request; the templates then see chunk (a list) instead of item.'),
    concurrency: count(1, 64, 'Requests of this call in flight at once (default 4); system.maxConcurrency still applies.'),
    onError: { enum: ['fail', 'skip'], description: 'fail (default): one failing element fails the request, naming the element; skip: leave failing elements out.' },
  },
};

export const cacheSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ttlSeconds'],
  description: 'Keep successful answers of this call in memory, keyed by method, URL, headers and body. Errors are never cached.',
  properties: {
    ttlSeconds: count(1, 86400, 'How long an answer stays valid, in seconds.'),
    maxEntries: count(1, 100000, 'Most answers kept (default 1000); the least recently used go first.'),
  },
};
