import { envReferences, resolveReference } from './env-references';
import type { InboundSpec, SystemSpec } from './model';
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

/** The credentials a mapping declares (each a Secret in the model). */
export function declaredSecretValues(system: SystemSpec, inbound: InboundSpec): Secret[] {
  const values: Secret[] = [];
  const { auth } = system;
  if (auth.type === 'basic') values.push(auth.password);
  if (auth.type === 'bearer') values.push(auth.token);
  if (auth.type === 'apiKey') values.push(auth.value);
  if (auth.type === 'oauth2ClientCredentials') values.push(auth.clientSecret);
  if (system.tls?.key) values.push(system.tls.key);
  if (inbound.auth.type === 'apiKey') values.push(...inbound.auth.keys);
  if (inbound.auth.type === 'basic') values.push(...inbound.auth.users.map((user) => user.password));
  return values;
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

/** A masker for the given secret values (a mapping's `secretValues`). */
export function createMasker(secretValues: readonly Secret[]): Masker {
  const secrets = [...new Set(secretValues.map((secret) => secret.reveal()).filter(worthMasking))].sort((a, b) => b.length - a.length);
  const text = (value: string) => secrets.reduce((masked, secret) => masked.split(secret).join(MASK), value);
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(deep);
    // Body keys are not judged by name: `key` is an ordinary contract field (export columns).
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, deep(item)]));
    return value;
  };
  // In JSON text a secret appears escaped; most texts hold none, which one `includes` per secret tells.
  const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1));
  const json = (value: string): string => {
    if (!escaped.some((secret) => value.includes(secret))) return value;
    return value.replace(/"(?:[^"\\]|\\.)*"/g, (literal) => escaped.reduce((masked, secret) => masked.split(secret).join(MASK), literal));
  };
  return {
    text,
    json,
    deep,
    url: (url) => text(maskUrlNames(url)),
    headers: (headers) => Object.fromEntries(Object.entries(maskHeaderNames(headers)).map(([name, value]) => [name, text(value)])),
  };
}

/** For mapping tests, which compare what really goes out; their values are test data, not secrets. */
export const noMasking: Masker = { text: (value) => value, json: (value) => value, deep: (value) => value, headers: (headers) => ({ ...headers }), url: (url) => url.href };
