import fs from 'node:fs';
import { envReferences, resolveReference, type EnvReference } from '../mapping/env-references';

/**
 * Secrets never reach the terminal: a dry run is pasted into tickets. Masked are the values of headers
 * and query parameters whose name says they hold a credential, and anywhere (URL, headers, bodies) the value of an
 * environment variable the mapping uses whose name says it is secret.
 */
export const MASK = '***';

const SECRET_NAME = /authorization|token|key|secret|passw|pwd|credential|cookie|session/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

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

export interface Masker {
  text(value: string): string;
  headers(headers: Readonly<Record<string, string>>): Record<string, string>;
  url(url: URL): string;
  deep(value: unknown): unknown;
}

export function createMasker(mappingFile: string, env: NodeJS.ProcessEnv): Masker {
  // Short values would mask innocent text everywhere; a credential is longer than three characters.
  // What each secret-named reference stands for: the variable's value, or the default it falls back to.
  const secrets = variablesOf(mappingFile)
    .filter((reference) => isSecretName(reference.name))
    .map((reference) => {
      const resolved = resolveReference(reference, env);
      return 'value' in resolved ? resolved.value : undefined;
    })
    .filter((value): value is string => typeof value === 'string' && value.length > 3)
    .sort((a, b) => b.length - a.length);
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
      for (const name of [...new Set(copy.searchParams.keys())]) if (isSecretName(name)) copy.searchParams.set(name, MASK);
      if (copy.password) copy.password = MASK;
      return text(copy.href);
    },
    headers: (headers) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, isSecretName(name) ? MASK : text(value)])),
  };
}

/** For mapping tests, which compare what really goes out; their values are test data, not secrets. */
export const noMasking: Masker = { text: (value) => value, deep: (value) => value, headers: (headers) => ({ ...headers }), url: (url) => url.href };
