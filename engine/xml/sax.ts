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
}

/** Line and column (1-based) of a code-unit offset into the parsed text; the default is the parser's own. */
export type Locate = (offset: number) => { line: number; column: number };

/** Throws an XmlError at the parser's position; given to the readers so their own errors say where. */
export type Fail = (kind: XmlErrorKind, message: string) => never;

/** A parse under way: text is written to it in as many chunks as the caller likes, then ended. */
interface SaxSession {
  write(chunk: string): void;
  /** Ends the document (a truncated one is an error here); the XML declaration's encoding, if any. */
  end(): string | undefined;
}

/**
 * The parser with the limits and the reader's events wired in; every error, the parser's own or a
 * limit's, is an XmlError at its place.
 *
 * saxes keeps each handler in a property added to the parser when it is set: past six or seven of them
 * V8 turns the parser into a dictionary and every parse takes about five times as long (1.1 ms against
 * 5.1 ms for 100 KB, measured). So the limits are counted in the handlers that are needed anyway (the
 * element's at its start tag's end, attributes as they come), the parser's own errors are caught
 * rather than handled, and the declaration is read from the parser afterwards.
 */
function saxSession(reader: (fail: Fail) => SaxEvents, limits: XmlLimits, locate?: Locate): SaxSession {
  const parser = new SaxesParser({ xmlns: true });
  const where = () => (locate ? locate(Math.max(0, parser.position - 1)) : { line: parser.line, column: parser.column });
  const fail: Fail = (kind, message) => {
    throw new XmlError(kind, message, where());
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
  parser.on('doctype', () => fail('doctype', 'the document has a DOCTYPE, which is refused (no DTD or entity of it is ever used)'));
  parser.on('attribute', (attribute) => {
    attributes += 1;
    if (attributes > limits.maxAttributes) fail('limit', `an element has more than ${limits.maxAttributes} attributes`);
    if (attribute.name.length > limits.maxNameLength) fail('limit', `a name is longer than ${limits.maxNameLength} characters`);
    countText(attribute.value.length);
  });
  parser.on('opentag', (tag) => {
    depth += 1;
    elements += 1;
    attributes = 0;
    if (tag.name.length > limits.maxNameLength) fail('limit', `a name is longer than ${limits.maxNameLength} characters`);
    if (depth > limits.maxDepth) fail('limit', `elements are nested deeper than ${limits.maxDepth}`);
    if (elements > limits.maxElements) fail('limit', `the document has more than ${limits.maxElements} elements`);
    events.open(tag);
  });
  parser.on('closetag', (tag) => {
    depth -= 1;
    events.close(tag);
  });
  parser.on('text', (chunk) => {
    if (depth === 0) return;
    countText(chunk.length);
    events.text(chunk);
  });
  const cdata = events.cdata ?? events.text;
  parser.on('cdata', (chunk) => {
    countText(chunk.length);
    cdata(chunk);
  });
  if (events.comment) parser.on('comment', events.comment);
  const guarded = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (error instanceof XmlError) throw error;
      // saxes's own error says "line:column: message"; the position is given the reader's way instead.
      throw new XmlError('malformed', (error as Error).message.replace(/^\d+:\d+: /, ''), where());
    }
  };
  return {
    write: (chunk) => guarded(() => parser.write(chunk)),
    end: () => guarded(() => {
      // Read before close(), which resets the parser.
      const encoding = parser.xmlDecl.encoding;
      parser.close();
      return encoding;
    }),
  };
}

/**
 * Reads `text` to its end, telling `reader`'s events; throws an XmlError at the first problem. Returns
 * the XML declaration's encoding, if it has one.
 */
export function readSax(text: string, reader: (fail: Fail) => SaxEvents, limits: XmlLimits = DEFAULT_XML_LIMITS, locate?: Locate): string | undefined {
  const session = saxSession(reader, limits, locate);
  session.write(text);
  return session.end();
}

/**
 * Characters written to the parser between two looks at the clock: well under a millisecond of parsing, so
 * a slice ends close to its time (saxes takes any split, a surrogate pair or a CRLF across two included).
 */
const CHUNK_CHARACTERS = 16 * 1024;

/**
 * The parts in chunks of at most CHUNK_CHARACTERS. A part no longer than that is given whole (decode.ts's parts
 * are): a slice of a string is a sliced string, which the parser reads a character at a time more slowly.
 */
function* chunks(parts: Iterable<string>): Generator<string> {
  for (const text of parts) {
    if (text.length <= CHUNK_CHARACTERS) {
      if (text !== '') yield text;
      continue;
    }
    for (let offset = 0; offset < text.length; offset += CHUNK_CHARACTERS) yield text.slice(offset, offset + CHUNK_CHARACTERS);
  }
}

/** Lets the event loop turn when a slice of work has used its time (a base module's TimeSlices, or a test's). */
export interface Slices {
  due(): boolean;
  turn(): Promise<void>;
}

/**
 * readSax for a large answer (an 8 MB ReadMultiple parses for half a second): the text, given in parts, is
 * written in chunks, and the event loop turns whenever a slice's time is up, so other requests are answered while
 * it parses. The same events, limits and errors as readSax.
 */
export async function readSaxInSlices(parts: Iterable<string>, reader: (fail: Fail) => SaxEvents, slices: Slices, limits: XmlLimits = DEFAULT_XML_LIMITS): Promise<string | undefined> {
  const session = saxSession(reader, limits);
  // The loop turns only before more of the document is written, never after its last chunk: an answer of one
  // chunk (most of them) costs no turn, and the stage after the parse looks at its own slices.
  let first = true;
  for (const chunk of chunks(parts)) {
    if (!first && slices.due()) await slices.turn();
    first = false;
    session.write(chunk);
  }
  return session.end();
}
