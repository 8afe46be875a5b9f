import { XmlError } from './errors';
import { escapeAttribute, escapeText, scalarText } from './escape';
import { checkNamespaces, splitName, type Namespaces } from './names';

/**
 * A JSON value → XML, by the reading rules in reverse: a key is an element (`so:Order` in the namespace
 * the mapping declares for `so`, a key without prefix in no namespace), `@name` an attribute, `#text`
 * the element's text, an array repeated elements; null and undefined are left out; numbers are written
 * as JSON writes them, booleans as true/false; every text and attribute value is escaped. The prefixes
 * used are declared once, on the outermost element written.
 */

export interface XmlWriteOptions {
  /** The mapping's prefixes (prefix → namespace URI). */
  readonly namespaces?: Namespaces;
  /** Whether to start with `<?xml version="1.0" encoding="utf-8"?>` (default true). */
  readonly declaration?: boolean;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Writes elements of one document, noting the prefixes it used. */
export class XmlWriter {
  private readonly namespaces: Namespaces;
  private readonly used = new Set<string>();

  constructor(namespaces: Namespaces = {}) {
    checkNamespaces(namespaces);
    this.namespaces = namespaces;
  }

  /** ` xmlns:p="uri"` for each prefix used so far, plus any `extra` ones (the SOAP envelope's). */
  declarations(extra: Namespaces = {}): string {
    const all: Record<string, string> = { ...extra };
    for (const prefix of this.used) all[prefix] = this.namespaces[prefix];
    return Object.entries(all).map(([prefix, uri]) => ` xmlns:${prefix}="${escapeAttribute(uri)}"`).join('');
  }

  private name(key: string, path: string): string {
    const { prefix } = splitName(key, path);
    if (prefix !== '' && prefix !== 'xml') {
      if (!Object.hasOwn(this.namespaces, prefix)) throw new XmlError('unwritable', `${path}: prefix "${prefix}" is not declared in the namespaces`, { path });
      this.used.add(prefix);
    }
    return key;
  }

  /** The children of an object: its keys other than `@…` and `#text`, in order. */
  content(value: Record<string, unknown>, path: string): string {
    let out = '';
    for (const key of Object.keys(value)) {
      if (key.startsWith('@') || key === '#text') continue;
      out += this.element(key, value[key], path === '' ? key : `${path}.${key}`);
    }
    return out;
  }

  /**
   * One key's element(s). The outermost element written is given `outermost` (extra declarations, or
   * {}): its start tag declares every prefix used inside it, which is known once its content is written.
   */
  element(key: string, value: unknown, path: string, outermost?: Namespaces): string {
    if (value === null || value === undefined) return '';
    if (Array.isArray(value)) {
      return value.map((item, index) => {
        if (Array.isArray(item)) throw new XmlError('unwritable', `${path}[${index}] is a list inside a list, which XML elements cannot show`, { path: `${path}[${index}]` });
        return this.element(key, item, `${path}[${index}]`);
      }).join('');
    }
    const name = this.name(key, path);
    const declarations = () => (outermost ? this.declarations(outermost) : '');
    if (!isObject(value)) {
      const text = escapeText(scalarText(value, path));
      return `<${name}${declarations()}>${text}</${name}>`;
    }
    let attributes = '';
    for (const attributeKey of Object.keys(value)) {
      const attribute = value[attributeKey];
      if (!attributeKey.startsWith('@') || attribute === null || attribute === undefined) continue;
      const attributePath = `${path}.${attributeKey}`;
      attributes += ` ${this.name(attributeKey.slice(1), attributePath)}="${escapeAttribute(scalarText(attribute, attributePath))}"`;
    }
    const text = value['#text'];
    const inner = (text === null || text === undefined ? '' : escapeText(scalarText(text, `${path}.#text`))) + this.content(value, path);
    const start = `<${name}${attributes}${declarations()}`;
    return inner === '' ? `${start}/>` : `${start}>${inner}</${name}>`;
  }
}

export function writeXml(value: unknown, options: XmlWriteOptions = {}): string {
  const keys = isObject(value) ? Object.keys(value).filter((key) => value[key] !== null && value[key] !== undefined) : [];
  if (!isObject(value) || keys.length !== 1 || Array.isArray(value[keys[0]])) {
    throw new XmlError('unwritable', 'an XML document is an object with one key, its root element (not a list)', { path: '' });
  }
  const writer = new XmlWriter(options.namespaces);
  const document = writer.element(keys[0], value[keys[0]], keys[0], {});
  return options.declaration === false ? document : `${XML_DECLARATION}${document}`;
}
