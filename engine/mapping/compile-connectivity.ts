import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import type { MappingIssueCode } from '../errors';
import type { AuthDocument, CacheDocument, CallDocument, CallRetryDocument, ForEachDocument, PaginateDocument, PlatformDocument, RefusalDocument, SystemDocument, TlsDocument } from './format/mapping';
import { readsResponseStatus } from './parse-tree';
import { Secret } from './secret';
import type { AuthSpec, CacheSpec, CsrfSpec, CallSpec, ForEachSpec, LocatedExpression, PaginateSpec, RateLimitSpec, RefusalSpec, RetryPolicy, TlsSpec } from './model';
import type { PathSegment, YamlSource } from './yaml-source';

/**
 * Compiles the connectivity settings (auth, TLS, retries, pagination, fan-out, cache) into the model.
 * The structure check has already checked each field and which fields each `type`/`style` takes, and
 * the format's defaults are filled in; here secrets are checked to come from ${VAR}, files are read once,
 * and the rules that tie two settings together are checked.
 */

export interface CompileHelpers {
  readonly source: YamlSource;
  /** Directory relative file paths (TLS files) are read from: the mapping file's own. */
  readonly baseDir: string;
  report(code: MappingIssueCode, path: readonly PathSegment[], message: string, pos?: { line: number; col: number }): void;
  warn(code: MappingIssueCode, path: readonly PathSegment[], message: string): void;
  expression(text: string, path: readonly PathSegment[]): LocatedExpression | undefined;
}

/** The two systems the engine calls; the same settings and the same code for both. */
export type SystemBlock = 'system' | 'platform';

/** `operations.GetItem.calls[0].retry`, as the structure check names places. */
function named(where: readonly PathSegment[]): string {
  return where.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

export function secretAt(h: CompileHelpers, value: string, where: readonly PathSegment[]): Secret | undefined {
  const env = h.source.envAt(where);
  if (!env || env.hasDefault) {
    const how = env ? 'must not have a default (${NAME:-default} writes the default into the file); use ${NAME} or ${NAME:?message}' : `must come from an environment variable, e.g. \${ERP_${String(where[where.length - 1]).toUpperCase()}}`;
    h.report('SECRET_INLINE', where, `${named(where)} is a secret and ${how}; a secret written into the mapping file ends up in version control and in every copy of it`);
    return undefined;
  }
  return new Secret(value);
}

/**
 * The URL a URL setting stands for while a variable it reads is unset (a check without the customer's
 * secrets): a host under .invalid, which never resolves (RFC 6761). Serving never loads such a mapping.
 */
export function unsetUrl(h: CompileHelpers, where: readonly PathSegment[]): URL | undefined {
  return h.source.envAt(where)?.unset.length ? new URL('http://unset.invalid/') : undefined;
}

/** The fields of each auth type that hold a secret (oauth1's token is the token's id, not a secret). */
const SECRET_FIELDS = {
  none: [], basic: ['password'], bearer: ['token'], apiKey: ['value'], oauth2ClientCredentials: ['clientSecret'], oauth1: ['consumerSecret', 'tokenSecret'],
} as const satisfies Record<AuthDocument['type'], readonly string[]>;

type SecretField = (typeof SECRET_FIELDS)[keyof typeof SECRET_FIELDS][number];

/** `block`: system (the ERP) or platform; both are read by this code. */
export function compileAuth(h: CompileHelpers, raw: AuthDocument, block: SystemBlock = 'system'): AuthSpec | undefined {
  const where = [block, 'auth'];
  const fields = raw as Partial<Record<SecretField, string>>;
  const secrets = new Map<string, Secret | undefined>();
  for (const field of SECRET_FIELDS[raw.type]) {
    const value = fields[field];
    if (typeof value === 'string') secrets.set(field, secretAt(h, value, [...where, field]));
  }
  if ([...secrets.values()].some((s) => !s)) return undefined;
  const secret = (field: SecretField) => secrets.get(field) as Secret;
  switch (raw.type) {
    case 'none':
      return { type: 'none' };
    case 'basic':
      return { type: 'basic', username: raw.username, password: secret('password') };
    case 'bearer':
      return { type: 'bearer', token: secret('token') };
    case 'apiKey':
      return { type: 'apiKey', in: raw.in, name: raw.name, value: secret('value') };
    case 'oauth2ClientCredentials': {
      let tokenUrl = unsetUrl(h, [...where, 'tokenUrl']);
      try {
        tokenUrl ??= new URL(raw.tokenUrl);
      } catch {
        tokenUrl = undefined;
      }
      if (!tokenUrl || (tokenUrl.protocol !== 'http:' && tokenUrl.protocol !== 'https:')) {
        h.report('TOKEN_URL_INVALID', [...where, 'tokenUrl'], `${block}.auth.tokenUrl "${raw.tokenUrl}" must be an absolute http:// or https:// URL`);
        return undefined;
      }
      return { type: 'oauth2ClientCredentials', tokenUrl, clientId: raw.clientId, clientSecret: secret('clientSecret'), scope: raw.scope, audience: raw.audience, clientAuth: raw.clientAuth };
    }
    case 'oauth1':
      return { type: 'oauth1', realm: raw.realm, consumerKey: raw.consumerKey, consumerSecret: secret('consumerSecret'), token: raw.token, tokenSecret: secret('tokenSecret'), signatureMethod: raw.signatureMethod };
  }
}

export function compileTls(h: CompileHelpers, raw: TlsDocument | undefined, block: SystemBlock = 'system'): TlsSpec | undefined | false {
  if (!raw) return undefined;
  const where = [block, 'tls'];
  if ((raw.certFile === undefined) !== (raw.keyFile === undefined)) {
    const missing = raw.certFile === undefined ? 'certFile' : 'keyFile';
    h.report('SETTINGS_DISAGREE', where, `${block}.tls needs both certFile and keyFile for a client certificate; "${missing}" is missing`);
    return false;
  }
  const read = (key: 'caFile' | 'certFile' | 'keyFile'): string | undefined | false => {
    const file = raw[key];
    // A path that reads an unset variable names no file yet: nothing to read while checking without it.
    if (file === undefined || h.source.envAt([...where, key])?.unset.length) return undefined;
    try {
      return fs.readFileSync(path.resolve(h.baseDir, file), 'utf8');
    } catch (error) {
      h.report('TLS_FILE_UNREADABLE', [...where, key], `${block}.tls.${key} "${file}" cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); paths are relative to the mapping file`);
      return false;
    }
  };
  const ca = read('caFile');
  const cert = read('certFile');
  const key = read('keyFile');
  if (ca === false || cert === false || key === false) return false;
  const insecureSkipVerify = raw.insecureSkipVerify;
  if (insecureSkipVerify) {
    h.warn('TLS_VERIFY_OFF', [...where, 'insecureSkipVerify'], `${block}.tls.insecureSkipVerify is true: the ${block === 'system' ? 'ERP' : 'platform'} certificate is NOT checked, so anyone on the network path can read and change the traffic, credentials included. Use caFile instead outside of a test setup`);
  }
  return { ca, cert, key: key === undefined ? undefined : new Secret(key), caFile: raw.caFile, certFile: raw.certFile, keyFile: raw.keyFile, insecureSkipVerify };
}

/** The CSRF token belongs to the ERP's session: without the session cookie every write would be refused. */
export function compileCsrf(h: CompileHelpers, raw: SystemDocument | PlatformDocument, block: SystemBlock = 'system'): CsrfSpec | undefined | false {
  if (!raw.csrf) return undefined;
  if (raw.cookies !== 'session') {
    h.report('SETTINGS_DISAGREE', [block, 'csrf'], `${block}.csrf needs ${block}.cookies: session: SAP Gateway binds the CSRF token to the session cookie it sets, so without the cookie every write is refused`, h.source.keyAt([block, 'csrf']));
    return false;
  }
  return { header: raw.csrf.header, fetchPath: raw.csrf.fetchPath };
}

/** rawQuery names parameters of the call's query: a name that is not there is a typo that would send the value encoded. */
export function compileRawQuery(h: CompileHelpers, raw: CallDocument, where: readonly PathSegment[]): readonly string[] | undefined {
  const names = raw.rawQuery ?? [];
  const unknown = names.findIndex((name) => !Object.hasOwn(raw.query ?? {}, name));
  if (unknown >= 0) {
    const known = Object.keys(raw.query ?? {});
    h.report('SETTINGS_DISAGREE', [...where, 'rawQuery', unknown], `${named(where)}.rawQuery names "${names[unknown]}", which is not a parameter under query${known.length ? ` (it has ${known.join(', ')})` : ''}`);
    return undefined;
  }
  return names;
}

/** The system's retry policy, and whether its calls are safe to repeat unless one says otherwise (undefined: by method). */
export interface SystemRetry extends RetryPolicy {
  readonly idempotent?: boolean;
}

export function compileSystemRetry(raw: SystemDocument['retry']): SystemRetry {
  return { attempts: raw.attempts, baseDelayMs: raw.baseDelayMs, maxDelayMs: raw.maxDelayMs, retryAfterMaxMs: raw.retryAfterMaxMs, idempotent: raw.idempotent };
}

/**
 * A request is repeated only when safe: as the call says, else as system.retry.idempotent says (an ERP whose
 * reads are all POST says it once there), else GET only.
 */
export function compileCallRetry(h: CompileHelpers, raw: CallRetryDocument | undefined, method: CallSpec['method'], defaults: SystemRetry, where: readonly PathSegment[]): RetryPolicy | undefined {
  const safe = raw?.idempotent ?? defaults.idempotent ?? method === 'GET';
  const policy: RetryPolicy = {
    attempts: raw?.attempts ?? defaults.attempts,
    baseDelayMs: raw?.baseDelayMs ?? defaults.baseDelayMs,
    maxDelayMs: raw?.maxDelayMs ?? defaults.maxDelayMs,
    retryAfterMaxMs: defaults.retryAfterMaxMs,
  };
  if (safe) return policy;
  if (raw?.attempts !== undefined && raw.attempts > 1) {
    const why = raw.idempotent === false ? 'the call says idempotent: false'
      : defaults.idempotent === false ? 'system.retry says idempotent: false (the call may say idempotent: true in its own retry)'
      : `a ${method} is only repeated when the call (or system.retry) says idempotent: true (repeating it could, for example, book twice)`;
    h.report('RETRY_NOT_SAFE', [...where, 'retry', 'attempts'], `${named(where)}.retry.attempts is ${raw.attempts}, but ${why}`);
    return undefined;
  }
  return { ...policy, attempts: 1 };
}

export function compilePaginate(h: CompileHelpers, raw: PaginateDocument | undefined, where: readonly PathSegment[]): PaginateSpec | undefined | false {
  if (!raw) return undefined;
  const at = [...where, 'paginate'];
  if (raw.style === 'page' && raw.sizeParam !== undefined && raw.pageSize === undefined) {
    h.report('SETTINGS_DISAGREE', at, `${named(at)} has sizeParam but no pageSize to send in it`);
    return false;
  }
  const items = raw.style === 'connection' ? h.expression(raw.connection, [...at, 'connection']) : h.expression(raw.items, [...at, 'items']);
  const hasMore = 'hasMore' in raw && raw.hasMore !== undefined ? h.expression(raw.hasMore, [...at, 'hasMore']) : undefined;
  const next = 'next' in raw ? h.expression(raw.next, [...at, 'next']) : undefined;
  if (!items || ('hasMore' in raw && raw.hasMore !== undefined && !hasMore) || ('next' in raw && !next)) return false;
  if (raw.style === 'cursor' && raw.in === 'query' && raw.cursorParam === undefined) {
    h.report('SETTINGS_DISAGREE', at, `${named(at)} needs cursorParam, the query parameter the cursor goes in (or in: body, when the call's body carries page.cursor)`);
    return false;
  }
  // linkHeader has no next expression to misspell: the Link header is the ERP's own word on the end.
  const common = { items, maxPages: raw.maxPages, lastPageMayBeFull: 'lastPageMayBeFull' in raw && raw.lastPageMayBeFull, in: 'in' in raw ? raw.in : ('query' as const) };
  switch (raw.style) {
    case 'page':
      return { ...common, style: 'page', pageParam: raw.pageParam, firstPage: raw.firstPage, sizeParam: raw.sizeParam, pageSize: raw.pageSize, hasMore };
    case 'offset':
      return { ...common, style: 'offset', offsetParam: raw.offsetParam, limitParam: raw.limitParam, pageSize: raw.pageSize, hasMore };
    case 'cursor':
      return { ...common, style: 'cursor', cursorParam: raw.cursorParam, next: next as LocatedExpression, pageSize: raw.pageSize };
    case 'nextLink':
      return { ...common, style: 'nextLink', next: next as LocatedExpression, pageSize: raw.pageSize };
    case 'linkHeader':
      return { ...common, style: 'linkHeader' };
    case 'connection':
      // The page state goes into the GraphQL variables, which the engine writes (pipeline/build-request.ts).
      return { ...common, in: 'body', style: 'connection', pageSize: raw.pageSize };
  }
}

export function compileForEach(h: CompileHelpers, raw: ForEachDocument | undefined, where: readonly PathSegment[]): ForEachSpec | undefined | false {
  if (!raw) return undefined;
  const list = h.expression(raw.list, [...where, 'forEach', 'list']);
  if (!list) return false;
  return { list, chunk: raw.chunk, maxConcurrency: raw.maxConcurrency, onError: raw.onError };
}

/** A refusal rule of a system, or a call's own; its expressions read the answer as response. */
export function compileRefusal(h: CompileHelpers, raw: RefusalDocument, where: readonly PathSegment[]): RefusalSpec | undefined {
  const when = h.expression(raw.when, [...where, 'when']);
  const message = raw.message === undefined ? undefined : h.expression(raw.message, [...where, 'message']);
  const retryable = raw.retryable === undefined ? undefined : h.expression(raw.retryable, [...where, 'retryable']);
  const retryAfterMs = raw.retryAfterMs === undefined ? undefined : h.expression(raw.retryAfterMs, [...where, 'retryAfterMs']);
  if (!when || (raw.message !== undefined && !message) || (raw.retryable !== undefined && !retryable) || (raw.retryAfterMs !== undefined && !retryAfterMs)) return undefined;
  if (retryAfterMs && !retryable) {
    h.report('SETTINGS_DISAGREE', [...where, 'retryAfterMs'], `${named(where)}.retryAfterMs says how long to wait before trying again, but there is no retryable to say when the refusal passes; add retryable (e.g. response.body.error.code = "THROTTLED")`);
    return undefined;
  }
  if (raw.retryable !== undefined && raw.retryable.trim() !== 'true' && !readsResponseStatus(jsonata(raw.retryable).ast())) {
    // Without retryable the status decides (408, 429 and 5xx are tried again); a rule over the body alone
    // gives false for a 503 that carries an error body, and that delivery is dead after one try.
    h.warn('SETTINGS_DISAGREE', [...where, 'retryable'], `${named(where)}.retryable does not test response.status, so it can give false for a refusal in a 408, 429 or 5xx answer, which the engine would otherwise try again: such a delivery goes to the dead letters after one try. Add the statuses, e.g. response.status in [408, 429] or response.status >= 500 or (${raw.retryable.trim()})`);
  }
  return { when, message, retryable, retryAfterMs };
}

export function compileCache(raw: CacheDocument | undefined): CacheSpec | undefined {
  if (!raw) return undefined;
  return { ttlMs: raw.ttlMs, maxEntries: raw.maxEntries };
}

/** system.rateLimit: its expressions compiled (cost over the request, observe over the answer). */
export function compileRateLimit(h: CompileHelpers, raw: SystemDocument['rateLimit'], block: SystemBlock): RateLimitSpec | undefined | false {
  if (!raw) return undefined;
  const where = [block, 'rateLimit'];
  const cost = raw.cost === undefined ? undefined : h.expression(raw.cost, [...where, 'cost']);
  const observe = raw.observe === undefined ? undefined : h.expression(raw.observe, [...where, 'observe']);
  if ((raw.cost !== undefined && !cost) || (raw.observe !== undefined && !observe)) return false;
  return { capacity: raw.capacity, refillPerSecond: raw.refillPerSecond, cost, observe };
}
