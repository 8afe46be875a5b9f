import { createHash, createHmac, randomUUID, type Hash, type Hmac } from 'node:crypto';
import { textTooLong } from './guard';
import { drive, type Focus } from './guarded-slices';

/**
 * What ERPs ask of a request besides its data: a signature ($hmac), a digest ($hash), Base64url, a fresh id,
 * a SQL literal. Each is one JSONata step, so each is guarded here as the guarded built-ins are: a long text
 * is hashed a slice at a time (the interpreter lets other requests in between; the fast path gives up to
 * it), and a text that would grow past the expression text limit is refused before it is built. Bad
 * arguments are errors that name the helper and say what it takes, never a quiet default.
 */

const ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
const ENCODINGS = ['hex', 'base64', 'base64url'] as const;
type Encoding = (typeof ENCODINGS)[number];

/** UTF-16 units hashed between two looks at the clock. */
const UNITS_PER_SLICE = 1 << 20;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

function algorithmOf(helper: string, value: unknown): (typeof ALGORITHMS)[number] {
  if (typeof value === 'string' && (ALGORITHMS as readonly string[]).includes(value.toLowerCase())) return value.toLowerCase() as (typeof ALGORITHMS)[number];
  throw new Error(`$${helper}: unknown algorithm ${describe(value)}; use 'sha1', 'sha256' or 'sha512'`);
}

function encodingOf(helper: string, value: unknown): Encoding {
  if (value === undefined) return 'hex';
  if (typeof value === 'string' && (ENCODINGS as readonly string[]).includes(value)) return value as Encoding;
  throw new Error(`$${helper}: unknown encoding ${describe(value)}; use 'hex' (the default), 'base64' or 'base64url'`);
}

function textOf(helper: string, what: string, value: unknown): string {
  if (typeof value === 'string') return value;
  throw new Error(`$${helper}: the ${what} must be text, not ${value === undefined ? 'nothing (a field that is missing?)' : describe(value)}; write $string(...) around a number`);
}

/** Feeds `text` as UTF-8 to the digest a slice at a time, never cutting a surrogate pair in two. */
function digest(focus: Focus | undefined, hash: Hash | Hmac, text: string, encoding: Encoding): string | Promise<string> {
  let offset = 0;
  const work = (): boolean => {
    let end = Math.min(text.length, offset + UNITS_PER_SLICE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    hash.update(text.slice(offset, end), 'utf8');
    offset = end;
    return offset >= text.length;
  };
  return drive(focus, work, () => hash.digest(encoding));
}

/** $hmac(algorithm, key, text, encoding?): the HMAC of the text's UTF-8 bytes under the key's UTF-8 bytes. */
function hmac(this: Focus, algorithm: unknown, key: unknown, text: unknown, encoding?: unknown): unknown {
  const name = algorithmOf('hmac', algorithm);
  const secret = textOf('hmac', 'key (argument 2)', key);
  if (secret === '') throw new Error('$hmac: the key (argument 2) is empty; a signature needs the secret (is its variable set?)');
  const how = encodingOf('hmac', encoding);
  if (text === undefined) return undefined;
  return digest(this, createHmac(name, secret), textOf('hmac', 'text (argument 3)', text), how);
}

/** $hash(algorithm, text, encoding?): the digest of the text's UTF-8 bytes. */
function hash(this: Focus, algorithm: unknown, text: unknown, encoding?: unknown): unknown {
  const name = algorithmOf('hash', algorithm);
  const how = encodingOf('hash', encoding);
  if (text === undefined) return undefined;
  return digest(this, createHash(name), textOf('hash', 'text (argument 2)', text), how);
}

/** The text limit of the evaluation (limits of compile.ts), for a result refused before it is built. */
function refuseLonger(focus: Focus | undefined, length: number): void {
  const limit = focus?.options?.maxTextLength;
  if (typeof limit === 'number' && limit > 0 && length > limit) throw textTooLong(length, limit);
}

/** $base64url(text): Base64url (RFC 4648 §5) of the text's UTF-8 bytes, without padding, as JWT writes it. */
function base64url(this: Focus, text: unknown): unknown {
  if (text === undefined) return undefined;
  const value = textOf('base64url', 'text', text);
  // Every UTF-16 unit is at most 3 UTF-8 bytes, and 3 bytes are 4 characters: an upper bound first.
  if (value.length * 4 > (this?.options?.maxTextLength ?? Infinity)) refuseLonger(this, Math.ceil((Buffer.byteLength(value, 'utf8') * 4) / 3));
  return Buffer.from(value, 'utf8').toString('base64url');
}

/** $uuid(): a random UUID (version 4), new at every call: a request id, an idempotency key. */
function uuid(): string {
  return randomUUID();
}

/**
 * $sqlLiteral(value): standard SQL's literal of a value (ISO SQL, Oracle and NetSuite's SuiteQL, SQL
 * Server, PostgreSQL): text in single quotes with each ' doubled, a finite number as it is, TRUE, FALSE,
 * NULL. Not MySQL's backslash escapes.
 */
function sqlLiteral(this: Focus, value: unknown): unknown {
  if (value === undefined) return undefined;
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`$sqlLiteral: ${value} is no SQL number`);
    return String(value);
  }
  if (typeof value !== 'string') throw new Error(`$sqlLiteral: takes text, a number, true, false or null, not ${describe(value)}`);
  if (value.includes('\u0000')) throw new Error('$sqlLiteral: the text holds a NUL character, which no SQL text literal can carry');
  let quotes = 0;
  for (let index = value.indexOf("'"); index !== -1; index = value.indexOf("'", index + 1)) quotes += 1;
  refuseLonger(this, value.length + quotes + 2);
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * As HELPER_FUNCTIONS declares them (functions.ts). The signatures take any value (`x`) where the helper
 * checks the type itself, so that a wrong argument gets its own message rather than JSONata's "does not
 * match function signature".
 */
export const REQUEST_HELPERS = [
  {
    name: 'hmac',
    signature: '<xxxx?:s>',
    doc: "$hmac('sha256', $secret('ERP_KEY'), text, 'base64') → the HMAC of the text's UTF-8 bytes under the key's; algorithm sha1, sha256 or sha512; encoding hex (the default), base64 or base64url. A missing text gives nothing; a missing or empty key is an error.",
    implementation: hmac,
  },
  {
    name: 'hash',
    signature: '<xxx?:s>',
    doc: "$hash('sha256', 'abc') → 'ba7816bf…15ad': the digest of the text's UTF-8 bytes; algorithm sha1, sha256 or sha512; encoding hex (the default), base64 or base64url. A missing text gives nothing.",
    implementation: hash,
  },
  {
    name: 'base64url',
    signature: '<x-:s>',
    doc: "$base64url('Größe?') → 'R3LDtsOfZT8': Base64url of the text's UTF-8 bytes, without padding (JWT's encoding).",
    implementation: base64url,
  },
  {
    name: 'uuid',
    signature: '<:s>',
    doc: '$uuid() → a new random UUID (version 4) at every call, e.g. for an idempotency key or a request id.',
    implementation: uuid,
    varies: true,
  },
  {
    name: 'sqlLiteral',
    signature: '<x-:s>',
    doc: "$sqlLiteral(\"O'Brien\") → 'O''Brien' (quoted, ' doubled), 42 → 42, true → TRUE, null → NULL: a value in a SQL query (SuiteQL and other SQL over REST), standard SQL quoting.",
    implementation: sqlLiteral,
  },
] as const;
