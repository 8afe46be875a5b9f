import { ROUTES } from '../contract/routes';
import { fileBlock } from './file-schema';
import { authSchema, cacheSchema, callRetrySchema, forEachSchema, paginateSchema, systemRetrySchema, tlsSchema } from './connectivity-schema';

/**
 * The JSON Schema of mapping format v1, built from the contract table so the operation names can
 * never drift from the routes. `npm run schema:mapping` writes it to schemas/mapping.schema.json for
 * editors (`# yaml-language-server: $schema=...`); a test keeps the file equal to this.
 * Room for later v1 additions (auth, pagination, fan-out, retries, caching) is left by keeping every
 * block an object: new optional keys do not break existing files.
 */

const expression = (description: string) => ({ type: 'string', minLength: 1, description: `JSONata expression. ${description}` });
const template = (description: string) => ({ type: 'string', description: `Text with {expression} placeholders. ${description}` });
const positiveMs = (description: string) => ({ type: 'integer', minimum: 1, maximum: 600000, description });

const call = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'method', 'path'],
  description: 'One HTTP call to the external system. Its response is available to later calls and to the output as calls.<name>.',
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Name of the call (letters, digits, _): later expressions read calls.<name>.status, .headers, .body.' },
    method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], description: 'HTTP method.' },
    path: template('Path under system.baseUrl, e.g. /sales-orders/{input.Code}. Placeholder values are URI-encoded, so they can never change the path.'),
    query: { type: 'object', additionalProperties: template('Query parameter value.'), description: 'Query parameters: name to value template. A placeholder giving nothing leaves the parameter out.' },
    headers: { type: 'object', additionalProperties: template('Header value.'), description: 'Extra headers for this call, on top of system.headers.' },
    body: expression('Builds the JSON request body from input and earlier calls.'),
    responseType: { enum: ['json', 'text', 'binary'], default: 'json', description: 'How to read the response body: json (default), text, or binary (given to expressions as Base64).' },
    timeoutMs: positiveMs('Timeout of each attempt of this call in milliseconds; default system.timeoutMs.'),
    retry: callRetrySchema,
    paginate: paginateSchema,
    forEach: forEachSchema,
    cache: cacheSchema,
  },
};

const outcome = {
  type: 'object',
  additionalProperties: false,
  required: ['when', 'result'],
  description: 'Checked in order after every call; the first rule whose condition is true decides the result.',
  properties: {
    when: expression('Condition over response (status, headers, body of the call just made), call (its name), calls and input.'),
    result: { type: 'string', description: "A result name of this route, e.g. WorkOrderDoesNotExist. The engine turns it into the route's number." },
    message: expression('Text for externalMessage, e.g. response.body.blockReason.'),
  },
};

const operation = {
  type: 'object',
  additionalProperties: false,
  description: 'How one contract route is answered: calls (+ outcomes + output), output alone, static, acknowledge, or file.',
  properties: {
    description: { type: 'string', description: 'Free text for people reading the mapping.' },
    calls: { type: 'array', items: call, description: 'HTTP calls made in order.' },
    outcomes: { type: 'array', items: outcome, description: 'Ordered outcome rules.' },
    output: expression('Builds the data of the answer from input and calls (data routes only).'),
    static: { description: 'A fixed data answer, checked against the contract at load (data routes only).' },
    acknowledge: { const: true, description: 'Event routes only: answer success without forwarding anything.' },
    file: { $ref: '#/definitions/file' },
    deadlineMs: positiveMs('Overall time budget of one contract request over all its calls, retries and pages; past it the answer is AdapterApiClientFailed.'),
  },
};

export function buildMappingSchema(): Record<string, unknown> {
  const operations = Object.fromEntries(
    ROUTES.map((route) => [route.operationId, { $ref: '#/definitions/operation', description: `${route.method} ${route.path}: ${route.summary}.` }]),
  );
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://adapter-engine.dev/schemas/mapping.schema.json',
    title: 'Adapter engine mapping file, format v1',
    type: 'object',
    additionalProperties: false,
    required: ['version', 'name', 'system', 'operations'],
    properties: {
      version: { const: 1, description: 'Mapping format version. Always 1.' },
      name: { type: 'string', minLength: 1, description: 'Name of the customer or mapping, shown in logs.' },
      description: { type: 'string' },
      system: {
        type: 'object',
        additionalProperties: false,
        required: ['baseUrl'],
        description: 'The external system (ERP).',
        properties: {
          baseUrl: { type: 'string', minLength: 1, description: 'Absolute http(s) URL every call path is appended to. ${VAR} reads an environment variable.' },
          headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Headers sent with every call.' },
          timeoutMs: positiveMs('Default timeout of a call in milliseconds (default 10000).'),
          maxResponseBytes: { type: 'integer', minimum: 1024, description: 'Largest response body accepted, in bytes (default 50 MB).' },
          auth: authSchema,
          tls: tlsSchema,
          retry: systemRetrySchema,
          maxConcurrency: { type: 'integer', minimum: 1, maximum: 1024, description: 'Most requests in flight to the ERP at once, over all contract requests (default 16).' },
        },
      },
      limits: {
        type: 'object',
        additionalProperties: false,
        description: 'Guardrails for JSONata expressions.',
        properties: {
          expressionTimeoutMs: positiveMs('Longest time one expression may run (default 5000).'),
          expressionMaxDepth: { type: 'integer', minimum: 10, description: 'Deepest recursion an expression may reach (default 500).' },
          expressionMaxSequence: { type: 'integer', minimum: 1000, description: 'Longest sequence an expression may build (default 5,000,000).' },
        },
      },
      functions: {
        type: 'object',
        propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
        additionalProperties: expression('A function, e.g. function($order) { {"number": $order.docNo} }; every expression of the mapping can call it as $<name>.'),
        description: 'Reusable JSONata functions of this mapping (no JavaScript). A function may call the functions defined above it.',
      },
      operations: { type: 'object', additionalProperties: false, properties: operations, description: 'One entry per contract route the mapping answers.' },
    },
    definitions: { operation, call, outcome, file: fileBlock },
  };
}
