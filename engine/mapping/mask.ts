import { envReferences, resolveReference } from './env-references';
import type { InboundSpec, PushAuthSpec, PushSpec, SystemSpec } from './model';
import { Secret } from './secret';

/**
 * Secrets never leave in what people read: a dry run is pasted into tickets, the request journal is read
 * by support staff, a recorded test is committed. Masked are the values of headers and query parameters
 * whose name says they hold a credential, and anywhere (URL, headers, bodies) a mapping's secret values:
 * those of the environment variables it uses whose name says they are secret, and its declared
 * credentials (system.auth, inbound.auth, the TLS key).
 */
export const MASK = '***';

const SECRET_NAME = /authorization|token|key|secret|passw|pwd|credential|cookie|session/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Short values would mask innocent text everywhere; a credential is longer than three characters. */
function worthMasking(value: string | undefined): value is string {
  return typeof value === 'string' && value.length > 3;
}

/** What each secret-named `${VAR}` of a mapping's text stands for: the variable's value, or the default it falls back to. */
export function secretEnvValues(text: string, env: NodeJS.ProcessEnv): Secret[] {
  return envReferences(text)
    .flatMap((reference) => (reference.kind === 'variable' && isSecretName(reference.name) ? [resolveReference(reference, env)] : []))
    .flatMap((resolved) => ('value' in resolved && worthMasking(resolved.value) ? [new Secret(resolved.value)] : []));
}

/** An `Authorization: Basic` value as it goes on the wire: neither its user name nor its password shows in it. */
function basicPair(username: string, password: string): Secret {
  return new Secret(Buffer.from(`${username}:${password}`, 'utf8').toString('base64'));
}

/** The credentials the engine sends to a system it calls (the ERP, or the platform). */
function outboundSecrets(system: SystemSpec): Secret[] {
  const values: Secret[] = [];
  const { auth } = system;
  if (auth.type === 'basic') values.push(auth.password, basicPair(auth.username, auth.password.reveal()));
  if (auth.type === 'bearer') values.push(auth.token);
  if (auth.type === 'apiKey') values.push(auth.value);
  // The client's Basic header of the token request, as token-source.ts writes it (RFC 6749 2.3.1).
  if (auth.type === 'oauth2ClientCredentials') values.push(auth.clientSecret, basicPair(encodeURIComponent(auth.clientId), encodeURIComponent(auth.clientSecret.reveal())));
  // PLAINTEXT's signature is the two secrets joined (RFC 5849 3.4.4); an HMAC one travels only in the Authorization header.
  if (auth.type === 'oauth1') values.push(auth.consumerSecret, auth.tokenSecret);
  if (system.tls?.key) values.push(system.tls.key);
  return values;
}

/** The credentials a caller presents to the engine (the platform under inbound.auth, the ERP on a push). */
function inboundSecrets(auth: InboundSpec['auth'] | PushAuthSpec): Secret[] {
  if (auth.type === 'apiKey') return [...auth.keys];
  if (auth.type === 'basic') return auth.users.flatMap((user) => [user.password, basicPair(user.username, user.password.reveal())]);
  if (auth.type === 'hmac') return [...auth.secrets];
  return [];
}

/** The credentials a mapping declares (each a Secret in the model): system:, inbound:, platform: and each push's auth. */
export function declaredSecretValues(system: SystemSpec, inbound: InboundSpec, platform?: SystemSpec, pushes: ReadonlyMap<string, PushSpec> = new Map()): Secret[] {
  return [
    ...outboundSecrets(system), ...inboundSecrets(inbound.auth),
    ...(platform ? outboundSecrets(platform) : []), ...[...pushes.values()].flatMap((push) => inboundSecrets(push.auth)),
  ];
}

/**
 * OAuth 1.0a signatures wherever an ERP echoes them (a 401 body that repeats the Authorization header):
 * a signature changes with every request, so no secret value matches it, and one is a credential for
 * as long as its timestamp holds. `oauth_signature="…"` (also inside JSON text) and `oauth_signature=…`.
 */
const OAUTH_SIGNATURE = /(oauth_signature(?:=|%3D)(?:\\?"|%22)?)[^"&,\s\\]+/gi;

export function maskOAuthSignatures(text: string): string {
  return text.includes('oauth_signature') ? text.replace(OAUTH_SIGNATURE, `$1${MASK}`) : text;
}

/** Headers named like a credential, masked whatever their value. */
export function maskHeaderNames(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, isSecretName(name) ? MASK : value]));
}

/** A URL with its password and the query parameters named like a credential masked. */
export function maskUrlNames(url: URL): string {
  const named = [...new Set(url.searchParams.keys())].filter(isSecretName);
  if (!url.password && named.length === 0) return url.href;
  const copy = new URL(url.href);
  for (const name of named) copy.searchParams.set(name, MASK);
  if (copy.password) copy.password = MASK;
  return copy.href;
}

export interface Masker {
  text(value: string): string;
  /** JSON text with the secret values masked inside its strings (numbers and structure untouched). */
  json(text: string): string;
  headers(headers: Readonly<Record<string, string>>): Record<string, string>;
  url(url: URL): string;
  deep(value: unknown): unknown;
}

/** Names whose values are credentials whatever they hold: the API key's header or query parameter, the CSRF header. */
export interface SecretNames {
  readonly headers: readonly string[];
  readonly query: readonly string[];
}

/** Headers that carry credentials by their protocol. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'];

/** The names a mapping declares as credentials (the API key and the CSRF header of system:, and of platform:). */
export function declaredSecretNames(...systems: readonly (SystemSpec | undefined)[]): SecretNames {
  const declared = systems.filter((system): system is SystemSpec => system !== undefined);
  return {
    headers: declared.flatMap(({ auth, csrf }) => [...(auth.type === 'apiKey' && auth.in === 'header' ? [auth.name] : []), ...(csrf ? [csrf.header] : [])]),
    query: declared.flatMap(({ auth }) => (auth.type === 'apiKey' && auth.in === 'query' ? [auth.name] : [])),
  };
}

function decodedOrAsIs(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a malformed %-sequence in an ERP's next link
  }
}

/**
 * The forms a secret travels in besides its own: URL-encoded (a query parameter, a form field; `+` for a
 * space in forms), Base64 (a header value). A `Bearer <token>` holds the token as it is.
 */
function secretForms(value: string): string[] {
  const encoded = encodeURIComponent(value);
  return [...new Set([value, encoded, encoded.replace(/%20/g, '+'), Buffer.from(value, 'utf8').toString('base64')])];
}

/**
 * A masker for the given secret values (a mapping's `secretValues`) in each of their forms, masked anywhere, and by name only the
 * credential headers and the `names` the mapping declares: other names are not judged, as OData's
 * `$skiptoken` holds the position of the next page and a dry run that hides it cannot show the pages.
 */
export function createMasker(secretValues: readonly Secret[], names: SecretNames = { headers: [], query: [] }): Masker {
  const headerNames = new Set([...CREDENTIAL_HEADERS, ...names.headers.map((name) => name.toLowerCase())]);
  const queryNames = new Set(names.query);
  const secrets = [...new Set(secretValues.flatMap((secret) => (worthMasking(secret.reveal()) ? secretForms(secret.reveal()) : [])))].sort((a, b) => b.length - a.length);
  const text = (value: string) => secrets.reduce((masked, secret) => masked.split(secret).join(MASK), maskOAuthSignatures(value));
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(deep);
    // Body keys are not judged by name: `key` is an ordinary contract field (export columns).
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, deep(item)]));
    return value;
  };
  // In JSON text a secret appears escaped; most texts hold none, which one `includes` per secret tells.
  const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1));
  const json = (given: string): string => {
    const value = maskOAuthSignatures(given);
    if (!escaped.some((secret) => value.includes(secret))) return value;
    return value.replace(/"(?:[^"\\]|\\.)*"/g, (literal) => escaped.reduce((masked, secret) => masked.split(secret).join(MASK), literal));
  };
  return {
    text,
    json,
    deep,
    url: (url) => {
      const copy = new URL(url.href);
      if (copy.password) copy.password = MASK;
      // Pair by pair, so the rest of the query shows as it is sent (URLSearchParams would re-encode it).
      if (queryNames.size > 0) {
        copy.search = copy.search.slice(1).split('&').map((pair) => {
          const name = pair.split('=')[0];
          return queryNames.has(decodedOrAsIs(name)) ? `${name}=${MASK}` : pair;
        }).join('&');
      }
      return text(copy.href);
    },
    headers: (headers) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, headerNames.has(name.toLowerCase()) ? MASK : text(value)])),
  };
}

/** For mapping tests, which compare what really goes out; their values are test data, not secrets. */
export const noMasking: Masker = { text: (value) => value, json: (value) => value, deep: (value) => value, headers: (headers) => ({ ...headers }), url: (url) => url.href };
