import { MASK, maskHeaderNames } from '../mapping/mask';

/**
 * What an expression read, as a dry run shows it: the parts of its document (input, calls.<name>,
 * response, item, page, …) that its text names, not the whole document, which holds every answer so
 * far. An expression that reads the root (`$$`) gets all of it. A shallow copy made when the expression
 * ran, so calls made later do not appear in it. The system's login answer (session) is a credential:
 * it is shown masked, and answer headers named like credentials (Set-Cookie) too.
 */
export function expressionRead(source: string, context: unknown): unknown {
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return context;
  const whole = source.includes('$$');
  const names = (name: string) => whole || new RegExp(`(^|[^\\w$])${name}\\b`).test(source);
  const read: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context)) {
    if (value === undefined || !names(key)) continue;
    if (key === 'session') read[key] = MASK;
    else if (key === 'calls' && typeof value === 'object' && value !== null) read[key] = namedCalls(value as Record<string, unknown>, whole ? () => true : (name) => source.includes(name));
    else if (key === 'response') read[key] = withMaskedHeaders(value);
    else read[key] = value;
  }
  return read;
}

function namedCalls(calls: Record<string, unknown>, names: (name: string) => boolean): Record<string, unknown> {
  return Object.fromEntries(Object.entries(calls).filter(([name]) => names(name)).map(([name, record]) => [name, Array.isArray(record) ? record.map(withMaskedHeaders) : withMaskedHeaders(record)]));
}

function withMaskedHeaders(record: unknown): unknown {
  if (typeof record !== 'object' || record === null || !('headers' in record)) return record;
  const { headers } = record as { headers: Record<string, string> };
  return { ...record, headers: maskHeaderNames(headers) };
}
