import fs from 'node:fs';
import path from 'node:path';
import type { MappingIssueCode } from '../errors';
import { Secret } from './secret';
import type { AuthSpec, CacheSpec, CallSpec, ForEachSpec, LocatedExpression, PaginateSpec, RetryPolicy, TlsSpec } from './model';
import type { PathSegment, YamlSource } from './yaml-source';

/**
 * Compiles the connectivity settings (auth, TLS, retries, pagination, fan-out, cache) into the model.
 * The JSON Schema has already checked each field's type; here each `type`/`style` gets exactly the
 * fields it uses, secrets are checked to come from ${VAR}, and files are read once.
 */

export interface CompileHelpers {
  readonly source: YamlSource;
  /** Directory relative file paths (TLS files) are read from: the mapping file's own. */
  readonly baseDir: string;
  report(code: MappingIssueCode, path: readonly PathSegment[], message: string, pos?: { line: number; col: number }): void;
  warn(code: MappingIssueCode, path: readonly PathSegment[], message: string): void;
  expression(text: string, path: readonly PathSegment[]): LocatedExpression | undefined;
}

export interface RawAuth {
  type: AuthSpec['type']; username?: string; password?: string; token?: string; in?: 'header' | 'query'; name?: string; value?: string;
  tokenUrl?: string; clientId?: string; clientSecret?: string; scope?: string; audience?: string; clientAuth?: 'basic' | 'body';
}
export interface RawTls { caFile?: string; certFile?: string; keyFile?: string; insecureSkipVerify?: boolean }
export interface RawRetry { attempts?: number; baseDelayMs?: number; maxDelayMs?: number; retryAfterMaxMs?: number; idempotent?: boolean }
export interface RawPaginate {
  style: PaginateSpec['style']; items: string; maxPages?: number; pageParam?: string; firstPage?: number; sizeParam?: string; pageSize?: number;
  offsetParam?: string; limitParam?: string; cursorParam?: string; hasMore?: string; next?: string;
}
export interface RawForEach { list: string; chunk?: number; concurrency?: number; onError?: 'fail' | 'skip' }
export interface RawCache { ttlSeconds: number; maxEntries?: number }

export const DEFAULT_RETRY: RetryPolicy = { attempts: 1, baseDelayMs: 200, maxDelayMs: 5000, retryAfterMaxMs: 30_000 };
export const DEFAULT_MAX_CONCURRENCY = 16;
const DEFAULT_MAX_PAGES = 100;
const DEFAULT_FAN_OUT_CONCURRENCY = 4;
const DEFAULT_CACHE_ENTRIES = 1000;

const AUTH_FIELDS: Record<AuthSpec['type'], { required: readonly (keyof RawAuth)[]; optional: readonly (keyof RawAuth)[] }> = {
  none: { required: [], optional: [] },
  basic: { required: ['username', 'password'], optional: [] },
  bearer: { required: ['token'], optional: [] },
  apiKey: { required: ['name', 'value'], optional: ['in'] },
  oauth2ClientCredentials: { required: ['tokenUrl', 'clientId', 'clientSecret'], optional: ['scope', 'audience', 'clientAuth'] },
};
const SECRET_FIELDS: readonly (keyof RawAuth)[] = ['password', 'token', 'value', 'clientSecret'];

const PAGINATE_FIELDS: Record<PaginateSpec['style'], { required: readonly (keyof RawPaginate)[]; optional: readonly (keyof RawPaginate)[] }> = {
  page: { required: [], optional: ['pageParam', 'firstPage', 'sizeParam', 'pageSize', 'hasMore'] },
  offset: { required: ['pageSize'], optional: ['offsetParam', 'limitParam', 'hasMore'] },
  cursor: { required: ['cursorParam', 'next'], optional: [] },
  nextLink: { required: ['next'], optional: [] },
  linkHeader: { required: [], optional: [] },
};
const PAGINATE_COMMON: readonly string[] = ['style', 'items', 'maxPages'];

/** `operations.GetItem.calls[0].retry`, as the structure check names places. */
function named(where: readonly PathSegment[]): string {
  return where.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

/** Reports fields that do not belong to the chosen variant and the ones it needs but lacks; true when fine. */
function checkVariant(h: CompileHelpers, raw: object, where: readonly PathSegment[], kind: string, variant: string, fields: { required: readonly string[]; optional: readonly string[] }, common: readonly string[]): boolean {
  let ok = true;
  const label = named(where);
  for (const key of Object.keys(raw)) {
    if (common.includes(key) || fields.required.includes(key) || fields.optional.includes(key)) continue;
    h.report('MODE_CONFLICT', [...where, key], `${label}.${key} does not apply to ${kind} ${variant}${fields.required.length + fields.optional.length > 0 ? ` (it takes: ${[...fields.required, ...fields.optional].join(', ')})` : ''}`, h.source.keyAt([...where, key]));
    ok = false;
  }
  for (const key of fields.required) {
    if ((raw as Record<string, unknown>)[key] !== undefined) continue;
    h.report('SCHEMA', where, `${label} with ${kind} ${variant} is missing the required setting "${key}"`);
    ok = false;
  }
  return ok;
}

function secretAt(h: CompileHelpers, value: string, where: readonly PathSegment[]): Secret | undefined {
  if (!h.source.usesEnv(where)) {
    h.report('SECRET_INLINE', where, `${named(where)} is a secret and must come from an environment variable, e.g. \${ERP_${String(where[where.length - 1]).toUpperCase()}}; a secret written into the mapping file ends up in version control and in every copy of it`);
    return undefined;
  }
  return new Secret(value);
}

export function compileAuth(h: CompileHelpers, raw: RawAuth | undefined): AuthSpec | undefined {
  if (!raw) return { type: 'none' };
  const where = ['system', 'auth'];
  if (!checkVariant(h, raw, where, 'type', raw.type, AUTH_FIELDS[raw.type], ['type'])) return undefined;
  const secrets = new Map<keyof RawAuth, Secret | undefined>();
  for (const field of SECRET_FIELDS) {
    const value = raw[field];
    if (typeof value === 'string') secrets.set(field, secretAt(h, value, [...where, field]));
  }
  if ([...secrets.values()].some((s) => !s)) return undefined;
  const secret = (field: keyof RawAuth) => secrets.get(field) as Secret;
  switch (raw.type) {
    case 'none':
      return { type: 'none' };
    case 'basic':
      return { type: 'basic', username: raw.username as string, password: secret('password') };
    case 'bearer':
      return { type: 'bearer', token: secret('token') };
    case 'apiKey':
      return { type: 'apiKey', in: raw.in ?? 'header', name: raw.name as string, value: secret('value') };
    case 'oauth2ClientCredentials': {
      let tokenUrl: URL | undefined;
      try {
        tokenUrl = new URL(raw.tokenUrl as string);
      } catch {
        tokenUrl = undefined;
      }
      if (!tokenUrl || (tokenUrl.protocol !== 'http:' && tokenUrl.protocol !== 'https:')) {
        h.report('TOKEN_URL_INVALID', [...where, 'tokenUrl'], `system.auth.tokenUrl "${raw.tokenUrl}" must be an absolute http:// or https:// URL`);
        return undefined;
      }
      return { type: 'oauth2ClientCredentials', tokenUrl, clientId: raw.clientId as string, clientSecret: secret('clientSecret'), scope: raw.scope, audience: raw.audience, clientAuth: raw.clientAuth ?? 'basic' };
    }
  }
}

export function compileTls(h: CompileHelpers, raw: RawTls | undefined): TlsSpec | undefined | false {
  if (!raw) return undefined;
  const where = ['system', 'tls'];
  if ((raw.certFile === undefined) !== (raw.keyFile === undefined)) {
    const missing = raw.certFile === undefined ? 'certFile' : 'keyFile';
    h.report('SCHEMA', where, `system.tls needs both certFile and keyFile for a client certificate; "${missing}" is missing`);
    return false;
  }
  const read = (key: 'caFile' | 'certFile' | 'keyFile'): string | undefined | false => {
    const file = raw[key];
    if (file === undefined) return undefined;
    try {
      return fs.readFileSync(path.resolve(h.baseDir, file), 'utf8');
    } catch (error) {
      h.report('TLS_FILE_UNREADABLE', [...where, key], `system.tls.${key} "${file}" cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); paths are relative to the mapping file`);
      return false;
    }
  };
  const ca = read('caFile');
  const cert = read('certFile');
  const key = read('keyFile');
  if (ca === false || cert === false || key === false) return false;
  const insecureSkipVerify = raw.insecureSkipVerify === true;
  if (insecureSkipVerify) {
    h.warn('TLS_VERIFY_OFF', [...where, 'insecureSkipVerify'], 'system.tls.insecureSkipVerify is true: the ERP certificate is NOT checked, so anyone on the network path can read and change the traffic, credentials included. Use caFile instead outside of a test setup');
  }
  return { ca, cert, key: key === undefined ? undefined : new Secret(key), caFile: raw.caFile, certFile: raw.certFile, keyFile: raw.keyFile, insecureSkipVerify };
}

export function compileSystemRetry(raw: RawRetry | undefined): RetryPolicy {
  return {
    attempts: raw?.attempts ?? DEFAULT_RETRY.attempts,
    baseDelayMs: raw?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: raw?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    retryAfterMaxMs: raw?.retryAfterMaxMs ?? DEFAULT_RETRY.retryAfterMaxMs,
  };
}

/** A request is repeated only when safe: GET unless the call says otherwise, anything else only with idempotent: true. */
export function compileCallRetry(h: CompileHelpers, raw: RawRetry | undefined, method: CallSpec['method'], defaults: RetryPolicy, where: readonly PathSegment[]): RetryPolicy | undefined {
  const safe = raw?.idempotent ?? method === 'GET';
  const policy: RetryPolicy = {
    attempts: raw?.attempts ?? defaults.attempts,
    baseDelayMs: raw?.baseDelayMs ?? defaults.baseDelayMs,
    maxDelayMs: raw?.maxDelayMs ?? defaults.maxDelayMs,
    retryAfterMaxMs: defaults.retryAfterMaxMs,
  };
  if (safe) return policy;
  if (raw?.attempts !== undefined && raw.attempts > 1) {
    const why = method === 'GET' ? 'the call says idempotent: false' : `a ${method} is only repeated when the call says idempotent: true (repeating it could, for example, book twice)`;
    h.report('MODE_CONFLICT', [...where, 'retry', 'attempts'], `${named(where)}.retry.attempts is ${raw.attempts}, but ${why}`);
    return undefined;
  }
  return { ...policy, attempts: 1 };
}

export function compilePaginate(h: CompileHelpers, raw: RawPaginate | undefined, where: readonly PathSegment[]): PaginateSpec | undefined | false {
  if (!raw) return undefined;
  const at = [...where, 'paginate'];
  if (!checkVariant(h, raw, at, 'style', raw.style, PAGINATE_FIELDS[raw.style], PAGINATE_COMMON)) return false;
  if (raw.style === 'page' && raw.sizeParam !== undefined && raw.pageSize === undefined) {
    h.report('SCHEMA', at, `${named(at)} has sizeParam but no pageSize to send in it`);
    return false;
  }
  const items = h.expression(raw.items, [...at, 'items']);
  const hasMore = raw.hasMore === undefined ? undefined : h.expression(raw.hasMore, [...at, 'hasMore']);
  const next = raw.next === undefined ? undefined : h.expression(raw.next, [...at, 'next']);
  if (!items || (raw.hasMore !== undefined && !hasMore) || (raw.next !== undefined && !next)) return false;
  const common = { items, maxPages: raw.maxPages ?? DEFAULT_MAX_PAGES };
  switch (raw.style) {
    case 'page':
      return { ...common, style: 'page', pageParam: raw.pageParam ?? 'page', firstPage: raw.firstPage ?? 1, sizeParam: raw.sizeParam, pageSize: raw.pageSize, hasMore };
    case 'offset':
      return { ...common, style: 'offset', offsetParam: raw.offsetParam ?? 'offset', limitParam: raw.limitParam ?? 'limit', pageSize: raw.pageSize as number, hasMore };
    case 'cursor':
      return { ...common, style: 'cursor', cursorParam: raw.cursorParam as string, next: next as LocatedExpression };
    case 'nextLink':
      return { ...common, style: 'nextLink', next: next as LocatedExpression };
    case 'linkHeader':
      return { ...common, style: 'linkHeader' };
  }
}

export function compileForEach(h: CompileHelpers, raw: RawForEach | undefined, where: readonly PathSegment[]): ForEachSpec | undefined | false {
  if (!raw) return undefined;
  const list = h.expression(raw.list, [...where, 'forEach', 'list']);
  if (!list) return false;
  return { list, chunk: raw.chunk, concurrency: raw.concurrency ?? DEFAULT_FAN_OUT_CONCURRENCY, onError: raw.onError ?? 'fail' };
}

export function compileCache(raw: RawCache | undefined): CacheSpec | undefined {
  if (!raw) return undefined;
  return { ttlSeconds: raw.ttlSeconds, maxEntries: raw.maxEntries ?? DEFAULT_CACHE_ENTRIES };
}
