import { decodeXml } from './decode';
import { XMLNS_URI } from './names';
import { readSax } from './sax';

/**
 * Whether two XML documents say the same, for tests (a test's expected request against the one sent):
 * elements and attributes compared by namespace URI and local name (never by prefix), attribute order
 * ignored, namespace declarations ignored, whitespace-only text between elements ignored, CDATA and
 * escaped text alike. Comments and processing instructions do not count.
 */

interface Element {
  readonly uri: string;
  readonly local: string;
  /** `{uri}local` → value. */
  readonly attributes: Map<string, string>;
  /** Child elements and text runs (adjacent text and CDATA merged). */
  readonly children: (Element | string)[];
}

export interface InfosetDifference {
  /** Where: /Envelope/Body/Order[2]/@id, local names with the position among same-named siblings. */
  readonly path: string;
  readonly message: string;
}

const expanded = (uri: string, local: string) => (uri === '' ? local : `{${uri}}${local}`);

function infosetOf(document: string | Uint8Array): Element {
  const text = typeof document === 'string' ? document : decodeXml(document);
  const root: Element = { uri: '', local: '', attributes: new Map(), children: [] };
  const stack: Element[] = [root];
  readSax(text, () => ({
    open(tag) {
      const attributes = new Map<string, string>();
      for (const attribute of Object.values(tag.attributes)) {
        if (attribute.uri !== XMLNS_URI) attributes.set(expanded(attribute.uri, attribute.local), attribute.value);
      }
      const element: Element = { uri: tag.uri, local: tag.local, attributes, children: [] };
      stack[stack.length - 1].children.push(element);
      stack.push(element);
    },
    close() {
      const element = stack.pop() as Element;
      if (element.children.some((child) => typeof child !== 'string')) {
        const kept = element.children.filter((child) => typeof child !== 'string' || /\S/.test(child));
        element.children.splice(0, element.children.length, ...kept);
      }
    },
    text(chunk) {
      const children = stack[stack.length - 1].children;
      const last = children.length - 1;
      if (typeof children[last] === 'string') children[last] += chunk;
      else children.push(chunk);
    },
  }));
  return root.children[0] as Element;
}

const describe = (node: Element | string | undefined) =>
  node === undefined ? 'nothing' : typeof node === 'string' ? `text ${JSON.stringify(node)}` : `element <${expanded(node.uri, node.local)}>`;

function compareAttributes(a: Element, b: Element, path: string): InfosetDifference | undefined {
  for (const [name, value] of a.attributes) {
    const other = b.attributes.get(name);
    if (other === undefined) return { path: `${path}/@${name}`, message: 'attribute missing in the second document' };
    if (other !== value) return { path: `${path}/@${name}`, message: `${JSON.stringify(value)} in the first document, ${JSON.stringify(other)} in the second` };
  }
  for (const name of b.attributes.keys()) if (!a.attributes.has(name)) return { path: `${path}/@${name}`, message: 'attribute only in the second document' };
  return undefined;
}

function compare(a: Element, b: Element, path: string): InfosetDifference | undefined {
  if (a.uri !== b.uri || a.local !== b.local) return { path, message: `${describe(a)} in the first document, ${describe(b)} in the second` };
  const attributes = compareAttributes(a, b, path);
  if (attributes) return attributes;
  const seen = new Map<string, number>();
  for (let index = 0; index < Math.max(a.children.length, b.children.length); index += 1) {
    const [left, right] = [a.children[index], b.children[index]];
    let childPath = `${path}/text()`;
    if (typeof left === 'object') {
      const name = expanded(left.uri, left.local);
      seen.set(name, (seen.get(name) ?? 0) + 1);
      childPath = `${path}/${left.local}[${seen.get(name)}]`;
    }
    if (typeof left === 'object' && typeof right === 'object') {
      const difference = compare(left, right, childPath);
      if (difference) return difference;
    } else if (left !== right) {
      return { path: childPath, message: `${describe(left)} in the first document, ${describe(right)} in the second` };
    }
  }
  return undefined;
}

/** undefined when `a` and `b` hold the same infoset; otherwise the first difference. */
export function sameXmlInfoset(a: string | Uint8Array, b: string | Uint8Array): InfosetDifference | undefined {
  const [left, right] = [infosetOf(a), infosetOf(b)];
  return compare(left, right, `/${left.local}`);
}
