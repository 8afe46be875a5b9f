import { Type, type TSchema } from '@sinclair/typebox';
import { block, expression, integer, oneOfWords, optional, secret, template, text, variant, variants, withDefault } from './declare';
import { apiKeyVariant, basicVariant } from './inbound';

/**
 * Push endpoints: the ERP sends work orders, cancellations, stock changes to the engine at
 * `POST /push/<name>`, and the engine forwards them to the platform (declared under `platform:`)
 * through the outbox. The calls and the outbox block are the operations' own declarations, handed in.
 */

export const PUSH_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*$';

const hmacVariant = variant('type', 'hmac', 'An HMAC signature of the raw request body (with the timestamp in front when timestampHeader is set: "<timestamp>.<body>"), compared in constant time.', {
  header: withDefault(text('The request header that carries the signature.'), 'X-Signature'),
  algorithm: withDefault(oneOfWords(['sha256', 'sha512'], 'The HMAC hash.'), 'sha256'),
  encoding: withDefault(oneOfWords(['hex', 'base64'], 'How the signature is written in the header.'), 'hex'),
  prefix: optional(Type.String({ description: 'Text before the signature in the header, e.g. "sha256=".' })),
  secrets: Type.Array(secret('A signing secret shared with the ERP.'), { minItems: 1, description: 'The secrets accepted; more than one while a secret is being rotated.' }),
  timestampHeader: withDefault(Type.Union([text('Header name.'), Type.Literal(false)], {
    description: 'The header with the time the ERP signed the push (Unix seconds); it is signed with the body, and a push older or newer than toleranceSeconds is refused, so a captured request cannot be replayed later. false: the body alone is signed and replays are caught only by the idempotency key.',
  }), 'X-Timestamp'),
  toleranceSeconds: withDefault(integer(1, 3600, 'How far the timestamp may be from the engine\'s clock, in seconds.'), 300),
});

const pushAuth = variants('type', [apiKeyVariant, basicVariant, hmacVariant], 'How the ERP must authenticate its pushes. A push without valid credentials is answered 401 and not stored.');

const rule = block({
  expect: expression('A condition over input (the pushed JSON) that a valid push meets, e.g. $count(input.lines) > 0.'),
  message: template('What the ERP is told when the condition is not met, e.g. "order {input.orderNo} has no lines".'),
}, { description: 'One check of the payload.' });

export function buildPushBlock<C extends TSchema, O extends TSchema>(call: C, outbox: O) {
  return block({
    description: optional(Type.String({ description: 'Free text for people reading the mapping.' })),
    auth: pushAuth,
    schema: optional(Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON Schema (draft 7) the pushed JSON must match; every problem is listed in the 400 answer.' })),
    rules: optional(Type.Array(rule, { description: 'Checks of the pushed JSON, each with its message; every failing one is listed in the 400 answer.' })),
    idempotencyKey: expression('Over input: what makes two pushes the same one, e.g. input.orderNo & "/" & input.version. A push whose key was seen before is answered 202 with the first one\'s event ids and forwarded no second time.'),
    records: optional(expression('Over input: the records one push carries, e.g. input.orders; each is delivered on its own (or in batches). Default: the push is one record.')),
    batch: optional(integer(1, 10_000, 'Records per platform call: the calls then see a list of up to this many records as input. Default: one call per record.')),
    transform: optional(expression('Over input, record (one of records) and index: what the platform expects for one record. Default: the record as pushed.')),
    calls: Type.Array(call, { minItems: 1, description: 'The calls to the platform (platform.baseUrl) that deliver one record, or one batch; their expressions read input: what transform gave (a list with batch).' }),
    deadlineMs: optional(integer(1, 600_000, 'Time budget of one delivery attempt over all its calls and retries.')),
    outbox: optional(outbox),
  }, { description: 'One push endpoint, served at POST /push/<name>: the ERP pushes, the engine checks and stores it, answers 202, and delivers it to the platform through the outbox.' });
}
