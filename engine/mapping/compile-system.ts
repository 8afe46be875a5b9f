import { compileAuth, compileCsrf, compileRateLimit, compileRefusal, compileSystemRetry, compileTls, unsetUrl, type CompileHelpers, type SystemBlock, type SystemRetry } from './compile-connectivity';
import type { PlatformDocument, SystemDocument } from './format/mapping';
import type { RefusalSpec, SystemSpec } from './model';

/** The system a call goes to, and the defaults its calls take from it; `spec` is undefined when the system block has errors. */
export interface CallTarget {
  readonly spec?: SystemSpec;
  readonly timeoutMs: number;
  readonly retry: SystemRetry;
  readonly queryEncoding: SystemSpec['queryEncoding'];
  /** The system's refusal rule, which every call obeys unless it declares its own. */
  readonly refusal?: RefusalSpec;
}

/** The ERP (system:) or the platform (platform:): the same settings, compiled by the same code. */
export function compileSystem(h: CompileHelpers, raw: SystemDocument | PlatformDocument, block: SystemBlock): CallTarget {
  const retry = compileSystemRetry(raw.retry);
  const refusal = raw.refusal && compileRefusal(h, raw.refusal, [block, 'refusal']);
  // Without a usable system its calls are still compiled (every problem of the file is reported at once).
  const failed: CallTarget = { timeoutMs: raw.timeoutMs, retry, queryEncoding: raw.queryEncoding, refusal };
  // A ${VAR} left unset (validate and routes work without the customer's secrets) is warned about where it is.
  let baseUrl = unsetUrl(h, [block, 'baseUrl']);
  try {
    baseUrl ??= new URL(raw.baseUrl);
  } catch {
    baseUrl = undefined;
  }
  if (!baseUrl || (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') || baseUrl.search || baseUrl.hash) {
    h.report('BASE_URL_INVALID', [block, 'baseUrl'], `${block}.baseUrl "${raw.baseUrl}" must be an absolute http:// or https:// URL without ? or #`);
    return failed;
  }
  for (const name of Object.keys(raw.headers ?? {})) {
    if (/^(authorization|proxy-authorization)$|api[-_]?key|token|secret|password/i.test(name) && h.source.envAt([block, 'headers', name])) {
      h.warn('CREDENTIAL_IN_HEADERS', [block, 'headers', name], `${block}.headers.${name} looks like a credential; declare it under ${block}.auth instead, which keeps it out of logs and dry-run output`);
    }
  }
  const auth = compileAuth(h, raw.auth, block);
  const tls = compileTls(h, raw.tls, block);
  const csrf = compileCsrf(h, raw, block);
  const rateLimit = compileRateLimit(h, raw.rateLimit, block);
  if (!auth || tls === false || csrf === false || (raw.refusal && !refusal) || rateLimit === false) return failed;
  const spec: SystemSpec = {
    baseUrl, headers: Object.entries(raw.headers ?? {}), timeoutMs: raw.timeoutMs, maxResponseBytes: raw.maxResponseBytes, auth, tls, maxConcurrency: raw.maxConcurrency,
    queryEncoding: raw.queryEncoding, cookies: raw.cookies, csrf,
    requestIdHeader: raw.requestIdHeader === false ? undefined : raw.requestIdHeader,
    idempotencyHeader: raw.idempotencyHeader === false ? undefined : raw.idempotencyHeader,
    healthCheck: 'healthCheck' in raw ? raw.healthCheck : undefined,
    emptyValues: raw.emptyValues ?? [],
    assetHosts: (raw.assetHosts ?? []).map((host) => host.toLowerCase()),
    rateLimit,
    xml: { namespaces: raw.xml?.namespaces ?? {}, prefixedKeys: raw.xml?.prefixedKeys ?? false },
  };
  return { spec, timeoutMs: raw.timeoutMs, retry, queryEncoding: raw.queryEncoding, refusal };
}
