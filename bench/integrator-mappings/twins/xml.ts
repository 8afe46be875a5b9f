import { SaxesParser } from 'saxes';

/** An element as a hand-written SOAP client reads it: local name, text, child elements. */
export interface XmlElement {
  readonly name: string;
  text: string;
  readonly children: XmlElement[];
}

/** The document's root element, read with saxes (namespace prefixes dropped: NAV's answers use the default namespace). */
export function readXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const root: XmlElement = { name: '#document', text: '', children: [] };
  const open: XmlElement[] = [root];
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.local ?? tag.name, text: '', children: [] };
    open[open.length - 1].children.push(element);
    open.push(element);
  });
  parser.on('text', (value) => {
    open[open.length - 1].text += value;
  });
  parser.on('closetag', () => {
    open.pop();
  });
  parser.write(text).close();
  return root.children[0];
}

export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((candidate) => candidate.name === name);
}

/** The text of a child element, or undefined when there is none. */
export function field(element: XmlElement, name: string): string | undefined {
  return child(element, name)?.text;
}
