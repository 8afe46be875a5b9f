/**
 * How query parameters go on the wire. URLSearchParams writes forms (a space as `+`, `$` as `%24`),
 * which many ERP APIs do not read as intended; here the mapping chooses:
 * - `percent` (the default): RFC 3986, every character but letters, digits and `-._~` percent-encoded,
 *   a space as `%20`;
 * - `form`: application/x-www-form-urlencoded, a space as `+` (what URLSearchParams writes);
 * - raw, for the parameters a call names in `rawQuery` (OData's `$filter`, `$orderby`): the characters
 *   OData's syntax uses (`$ ( ) , : / = @ ; ! * ?`) are sent as they are; only what would end the value
 *   or cannot appear in a URL is encoded (space, `&`, `#`, `+`, `%`, quotes, non-ASCII). A value can still
 *   never add a parameter. WHATWG URLs (and so every Node HTTP client) always send `'` as `%27`, which
 *   OData defines as the same character.
 * Names are written raw: they come from the mapping, and OData's start with `$`.
 */
export type QueryEncoding = 'percent' | 'form';

const hex = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

function encodeExcept(text: string, keep: RegExp): string {
  let out = '';
  for (const char of text) out += keep.test(char) ? char : [...Buffer.from(char, 'utf8')].map(hex).join('');
  return out;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const RAW_KEPT = /^[A-Za-z0-9\-._~$()',:/=@;!*?]$/;

export function encodeQueryValue(value: string, encoding: QueryEncoding | 'raw'): string {
  if (encoding === 'form') return new URLSearchParams([['', value]]).toString().slice(1);
  return encodeExcept(value, encoding === 'raw' ? RAW_KEPT : UNRESERVED);
}

/** The mapping's own text of a raw value: as `encodeQueryValue(…, 'raw')`, but a `%XX` the integrator wrote is kept. */
export function encodeRawLiteral(text: string): string {
  return text.split(/(%[0-9A-Fa-f]{2})/).map((part, index) => (index % 2 === 1 ? part : encodeQueryValue(part, 'raw'))).join('');
}

export function encodeQueryName(name: string): string {
  return encodeQueryValue(name, 'raw');
}

function decodedName(pair: string): string {
  const name = pair.split('=')[0];
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** `url` with `pairs` (already encoded `name=value`) appended to its query. */
export function withQueryPairs(url: URL, pairs: readonly string[]): URL {
  if (pairs.length === 0) return url;
  const next = new URL(url.href);
  const current = next.search.slice(1);
  next.search = [...(current ? [current] : []), ...pairs].join('&');
  return next;
}

/**
 * `url` with each parameter of `params` set as URLSearchParams.set does (the first of that name replaced
 * in place, later ones removed, a new one appended), the rest of its query untouched.
 */
export function withQueryParams(url: URL, params: Readonly<Record<string, string | number | undefined>>, encoding: QueryEncoding): URL {
  const given = new Map(Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined).map(([name, value]) => [name, `${encodeQueryName(name)}=${encodeQueryValue(String(value), encoding)}`]));
  if (given.size === 0) return url;
  const pairs: string[] = [];
  for (const pair of url.search.slice(1).split('&')) {
    if (pair === '') continue;
    const name = decodedName(pair);
    if (!given.has(name)) pairs.push(pair);
    else if (given.get(name) !== '') {
      pairs.push(given.get(name) as string);
      given.set(name, ''); // placed; later pairs of that name are dropped
    }
  }
  for (const pair of given.values()) if (pair !== '') pairs.push(pair);
  const next = new URL(url.href);
  next.search = '';
  return withQueryPairs(next, pairs);
}
