import { SaxesParser, type SaxesTagNS } from 'saxes';
import { XmlError, type XmlErrorKind } from './errors';

/**
 * The one place a document meets the parser: saxes, strict and namespace-aware, with what makes hostile
 * input harmless. A DOCTYPE is refused (saxes expands no entity of a DTD anyway; refusing the DTD makes
 * that a clear error instead of "undefined entity"), and the limits are counted as the parser goes, so
 * it stops at the first one passed instead of after building a view of a document that never ends.
 */

export interface XmlLimits {
  /** Elements inside elements. */
  readonly maxDepth: number;
  /** Elements in the whole document. */
  readonly maxElements: number;
  /** Attributes on one element (namespace declarations included). */
  readonly maxAttributes: number;
  /** Characters of one element or attribute name, prefix included. */
  readonly maxNameLength: number;
  /** Characters of text, CDATA and attribute values in the whole document. */
  readonly maxTextLength: number;
}

/** Well above any ERP answer seen (ReadMultiple of 10,000 orders is about 500,000 elements, depth 9). */
export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxDepth: 100,
  maxElements: 2_000_000,
  maxAttributes: 256,
  maxNameLength: 1024,
  maxTextLength: 128 * 1024 * 1024,
};

/** What a reader of the document is told; text outside the root element (whitespace) is not passed on. */
export interface SaxEvents {
  open(tag: SaxesTagNS): void;
  close(tag: SaxesTagNS): void;
  /** Text and CDATA alike, entities and character references decoded. */
  text(text: string): void;
  /** When given, CDATA comes here instead of to `text`. */
  cdata?(text: string): void;
  comment?(text: string): void;
  /** The XML declaration's encoding, when it has one. */
  declaredEncoding?(encoding: string): void;
}

/** Line and column (1-based) of a code-unit offset into the parsed text; the default is the parser's own. */
export type Locate = (offset: number) => { line: number; column: number };

/** Throws an XmlError at the parser's position; given to the readers so their own errors say where. */
export type Fail = (kind: XmlErrorKind, message: string) => never;

/** Reads `text` to its end, telling `reader`'s events; throws an XmlError at the first problem. */
export function readSax(text: string, reader: (fail: Fail) => SaxEvents, limits: XmlLimits = DEFAULT_XML_LIMITS, locate?: Locate): void {
  const parser = new SaxesParser({ xmlns: true });
  const fail: Fail = (kind, message) => {
    const at = locate ? locate(Math.max(0, parser.position - 1)) : { line: parser.line, column: parser.column };
    throw new XmlError(kind, message, at);
  };
  const events = reader(fail);
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  let textLength = 0;
  const countText = (length: number) => {
    textLength += length;
    if (textLength > limits.maxTextLength) fail('limit', `the document holds more than ${limits.maxTextLength} characters of text`);
  };
  const checkName = (name: string) => {
    if (name.length > limits.maxNameLength) fail('limit', `a name is longer than ${limits.maxNameLength} characters`);
  };
  // saxes without an error handler throws a plain Error that says "line:column: message"; this keeps the message.
  parser.on('error', (error) => fail('malformed', error.message.replace(/^\d+:\d+: /, '')));
  parser.on('doctype', () => fail('doctype', 'the document has a DOCTYPE, which is refused (no DTD or entity of it is ever used)'));
  parser.on('xmldecl', (declaration) => {
    if (declaration.encoding !== undefined) events.declaredEncoding?.(declaration.encoding);
  });
  parser.on('opentagstart', (tag) => {
    depth += 1;
    elements += 1;
    attributes = 0;
    checkName(tag.name);
    if (depth > limits.maxDepth) fail('limit', `elements are nested deeper than ${limits.maxDepth}`);
    if (elements > limits.maxElements) fail('limit', `the document has more than ${limits.maxElements} elements`);
  });
  parser.on('attribute', (attribute) => {
    attributes += 1;
    checkName(attribute.name);
    countText(attribute.value.length);
    if (attributes > limits.maxAttributes) fail('limit', `an element has more than ${limits.maxAttributes} attributes`);
  });
  parser.on('opentag', (tag) => events.open(tag));
  parser.on('closetag', (tag) => {
    depth -= 1;
    events.close(tag);
  });
  parser.on('text', (chunk) => {
    if (depth === 0) return;
    countText(chunk.length);
    events.text(chunk);
  });
  parser.on('cdata', (chunk) => {
    countText(chunk.length);
    (events.cdata ?? events.text)(chunk);
  });
  if (events.comment) parser.on('comment', events.comment);
  parser.write(text).close();
}
