import { NC_NAME_RE } from 'xmlchars/xmlns/1.0/ed3';
import { XmlError } from './errors';

/** The namespaces XML itself binds, and the ones SOAP answers are recognised by. */
export const XML_URI = 'http://www.w3.org/XML/1998/namespace';
export const XMLNS_URI = 'http://www.w3.org/2000/xmlns/';
export const XSI_URI = 'http://www.w3.org/2001/XMLSchema-instance';
export const SOAP_URIS = { '1.1': 'http://schemas.xmlsoap.org/soap/envelope/', '1.2': 'http://www.w3.org/2003/05/soap-envelope' } as const;
export type SoapVersion = keyof typeof SOAP_URIS;

/** A mapping's `namespaces:` (prefix → URI), checked: every prefix a name, every URI given. */
export type Namespaces = Readonly<Record<string, string>>;

export function checkNamespaces(namespaces: Namespaces): void {
  for (const [prefix, uri] of Object.entries(namespaces)) {
    if (!NC_NAME_RE.test(prefix) || /^xml/i.test(prefix)) throw new XmlError('unwritable', `namespace prefix "${prefix}" is not one a document can use (a name without ":" that does not start with "xml")`);
    if (uri === '') throw new XmlError('unwritable', `namespace prefix "${prefix}" has an empty URI`);
  }
}

/** `prefix:local` → its parts; a key that is not such a name is an error naming the field. */
export function splitName(key: string, path: string): { prefix: string; local: string } {
  const colon = key.indexOf(':');
  const prefix = colon === -1 ? '' : key.slice(0, colon);
  const local = colon === -1 ? key : key.slice(colon + 1);
  if (!NC_NAME_RE.test(local) || (colon !== -1 && !NC_NAME_RE.test(prefix))) {
    throw new XmlError('unwritable', `${path}: "${key}" is not an XML name`, { path });
  }
  return { prefix, local };
}
