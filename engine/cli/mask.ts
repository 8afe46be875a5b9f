import fs from 'node:fs';
import { envReferences, resolveReference, type EnvReference } from '../mapping/env-references';
import type { Mapping } from '../mapping/model';
import { Secret } from '../mapping/secret';

/**
 * Secrets never reach the terminal: a dry run is pasted into tickets. Masked are
 * - anywhere (URL, headers, bodies): the value of every credential the mapping declares (the secret
 *   settings of system.auth, inbound.auth, the TLS key) and of every environment variable the mapping
 *   reads whose name says it is a secret (`${SAP_PASSWORD}`, `${ERP_TOKEN}`);
 * - by name: the headers that carry credentials by their protocol (Authorization, Cookie, Set-Cookie),
 *   the API key's header or query parameter as system.auth names it, and the CSRF token's header.
 * Other names are not judged: OData's `$skiptoken` holds the position of the next page, and a dry run
 * that hides it cannot show the pages.
 */
export const MASK = '***';

const SECRET_VARIABLE = /authorization|token|key|secret|passw|pwd|credential|cookie|session/i;
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'];

/** `${NAME}` references of the mapping file, read from its text (the loaded model keeps only values). */
function variablesOf(mappingFile: string): Extract<EnvReference, { kind: 'variable' }>[] {
  let text: string;
  try {
    text = fs.readFileSync(mappingFile, 'utf8');
  } catch {
    return [];
  }
  return envReferences(text).filter((reference) => reference.kind === 'variable');
}

function decodedOrAsIs(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a malformed %-sequence in an ERP's next link
  }
}

/** Every Secret of the model (auth credentials, inbound keys, TLS key), revealed for matching. */
function declaredSecrets(mapping: Mapping): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (node instanceof Secret) found.push(node.reveal());
    if (typeof node !== 'object' || node === null || seen.has(node) || node instanceof URL) return;
    seen.add(node);
    for (const value of node instanceof Map ? node.values() : Object.values(node)) visit(value);
  };
  visit(mapping.system);
  visit(mapping.inbound);
  return found;
}

export interface Masker {
  text(value: string): string;
  headers(headers: Readonly<Record<string, string>>): Record<string, string>;
  url(url: URL): string;
  deep(value: unknown): unknown;
}

export function createMasker(mapping: Mapping, env: NodeJS.ProcessEnv, mappingFile: string = mapping.file): Masker {
  // Short values would mask innocent text everywhere; a credential is longer than three characters.
  // What each secret-named reference stands for: the variable's value, or the default it falls back to.
  const variables = variablesOf(mappingFile).filter((reference) => SECRET_VARIABLE.test(reference.name)).map((reference) => {
    const resolved = resolveReference(reference, env);
    return 'value' in resolved ? resolved.value : undefined;
  });
  const secrets = [...declaredSecrets(mapping), ...variables]
    .filter((value): value is string => typeof value === 'string' && value.length > 3)
    .sort((a, b) => b.length - a.length);
  const { auth, csrf } = mapping.system;
  const headerNames = new Set([...CREDENTIAL_HEADERS, ...(auth.type === 'apiKey' && auth.in === 'header' ? [auth.name] : []), ...(csrf ? [csrf.header] : [])].map((name) => name.toLowerCase()));
  const queryNames = new Set(auth.type === 'apiKey' && auth.in === 'query' ? [auth.name] : []);
  const text = (value: string) => secrets.reduce((masked, secret) => masked.split(secret).join(MASK), value);
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(deep);
    // Body keys are not judged by name: `key` is an ordinary contract field (export columns).
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, deep(item)]));
    return value;
  };
  return {
    text,
    deep,
    url: (url) => {
      const copy = new URL(url.href);
      // Pair by pair, so the rest of the query shows as it is sent (URLSearchParams would re-encode it).
      copy.search = copy.search.slice(1).split('&').map((pair) => {
        const name = pair.split('=')[0];
        return queryNames.has(decodedOrAsIs(name)) ? `${name}=${MASK}` : pair;
      }).join('&');
      if (copy.password) copy.password = MASK;
      return text(copy.href);
    },
    headers: (headers) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, headerNames.has(name.toLowerCase()) ? MASK : text(value)])),
  };
}

/** For mapping tests, which compare what really goes out; their values are test data, not secrets. */
export const noMasking: Masker = { text: (value) => value, deep: (value) => value, headers: (headers) => ({ ...headers }), url: (url) => url.href };
