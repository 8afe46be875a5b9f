import { XmlError } from './errors';
import { escapeAttribute, escapeText, scalarText } from './escape';
import { readSax, type Locate } from './sax';

/**
 * `bodyXml:` templates: XML copied from a vendor's documentation with `{placeholders}` whose text is a
 * JSONata expression (compiled by the caller). `{{` and `}}` are literal braces. At load the template is
 * checked well-formed with every placeholder replaced by a dummy text, and a placeholder is allowed only
 * where a value is text: in element content or an attribute value, never in a name, a comment, CDATA or
 * a processing instruction. Filled, every value is escaped for its place, so a value can never add markup.
 */

interface TemplateHole {
  /** The placeholder's text without its braces, trimmed: a JSONata expression. */
  readonly expression: string;
  /** Where the value goes, which decides how it is escaped. */
  readonly context: 'text' | 'attribute';
  /** Where the `{` is in the template (1-based). */
  readonly line: number;
  readonly column: number;
}

/** Literal XML (braces unescaped) and holes, in order. */
export type TemplatePart = string | TemplateHole;

/** A hole while splitting, before the check gives it a context. */
interface Found {
  readonly expression: string;
  readonly offset: number;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function templateError(text: string, offset: number, message: string): XmlError {
  const at = lineColumn(text, offset);
  return new XmlError('template', message, at);
}

/** Index of the `}` that closes the placeholder opened just before `start`: JSONata's own braces, strings and comments are skipped. */
function holeEnd(text: string, start: number): number {
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"' || char === "'" || char === '`') {
      for (index += 1; index < text.length && text[index] !== char; index += 1) if (text[index] === '\\' && char !== '`') index += 1;
    } else if (char === '/' && text[index + 1] === '*') {
      const close = text.indexOf('*/', index + 2);
      index = close === -1 ? text.length : close + 1;
    } else if (char === '{') {
      depth += 1;
    } else if (char === '}') {
      if (depth === 0) return index;
      depth -= 1;
    }
  }
  throw templateError(text, start - 1, 'this placeholder is not closed with }');
}

/**
 * While checking, a hole is this marker around its number: the marker is a name character and a text
 * character, so a hole in a name still parses (and is then refused by name), and one in text is dummy text.
 */
const MARK = '\u{E0101}';
const MARKED = /\u{E0101}(\d+)\u{E0101}/gu;

interface Split {
  /** Literal XML (braces unescaped) and holes, in order. */
  readonly pieces: (string | Found)[];
  /** The template with literal braces unescaped and each hole a marker: what is checked. */
  readonly dummy: string;
  /** The template offset of each code unit of `dummy`, for positions of problems. */
  readonly origin: readonly number[];
}

function split(text: string): Split {
  const pieces: (string | Found)[] = [];
  const origin: number[] = [];
  let literal = '';
  let dummy = '';
  const add = (chars: string, at: number) => {
    dummy += chars;
    for (let count = 0; count < chars.length; count += 1) origin.push(at);
  };
  for (let index = 0; index < text.length;) {
    const char = text[index];
    if ((char === '{' || char === '}') && text[index + 1] === char) {
      literal += char;
      add(char, index);
      index += 2;
    } else if (char === '{') {
      const end = holeEnd(text, index + 1);
      const expression = text.slice(index + 1, end).trim();
      if (expression === '') throw templateError(text, index, 'an empty placeholder {}; write {{}} for literal braces');
      add(`${MARK}${pieces.length / 2}${MARK}`, index);
      pieces.push(literal, { expression, offset: index });
      literal = '';
      index = end + 1;
    } else if (char === '}') {
      throw templateError(text, index, 'a } that closes no placeholder; write }} for a literal brace');
    } else {
      literal += char;
      add(char, index);
      index += 1;
    }
  }
  pieces.push(literal);
  return { pieces, dummy, origin };
}

type Context = TemplateHole['context'];

interface Checks {
  /** Throws when `value` holds a hole. */
  refuse(value: string, message: string): void;
  /** Notes the context of the holes in `value`. */
  note(value: string, context: Context): void;
  declared(encoding: string): void;
}

/** Reads the dummy document: holes in names, CDATA and comments are refused, the others noted. */
function checkTemplate(dummy: string, checks: Checks, locate: Locate): void {
  const { refuse, note } = checks;
  const encoding = readSax(dummy, () => ({
    open(tag) {
      refuse(tag.name, 'a placeholder cannot be part of an element name');
      for (const attribute of Object.values(tag.attributes)) {
        refuse(attribute.name, 'a placeholder cannot be part of an attribute name');
        note(attribute.value, 'attribute');
      }
    },
    close() {},
    text: (chunk) => note(chunk, 'text'),
    cdata: (chunk) => refuse(chunk, 'a placeholder cannot stand inside CDATA; write it as element text (its value is escaped)'),
    comment: (chunk) => refuse(chunk, 'a placeholder cannot stand inside a comment'),
  }), undefined, locate);
  if (encoding !== undefined) checks.declared(encoding);
}

/** Checks the template and tells where each hole stands; throws an XmlError of kind `template`. */
export function parseXmlTemplate(text: string): TemplatePart[] {
  if (text.includes(MARK)) throw templateError(text, text.indexOf(MARK), 'the template holds U+E0101, a character kept for checking templates');
  const { pieces, dummy, origin } = split(text);
  const holes = pieces.filter((piece): piece is Found => typeof piece !== 'string');
  const contexts: Context[] = [];
  const firstHole = (value: string): Found | undefined => {
    const match = new RegExp(MARKED.source, 'u').exec(value);
    return match ? holes[Number(match[1])] : undefined;
  };
  const refuse = (value: string, message: string) => {
    const hole = firstHole(value);
    if (hole) throw templateError(text, hole.offset, message);
  };
  const note = (value: string, context: Context) => {
    for (const match of value.matchAll(MARKED)) contexts[Number(match[1])] = context;
  };
  const locate = (offset: number) => lineColumn(text, origin[Math.min(offset, origin.length - 1)] ?? 0);
  try {
    checkTemplate(dummy, { refuse, note, declared: (encoding) => {
      if (!/^utf-?8$/i.test(encoding)) throw templateError(text, 0, `the template declares encoding="${encoding}", but requests are sent as UTF-8`);
    } }, locate);
  } catch (error) {
    // The parser's own findings (not well-formed) are the template's problems, at the template's line:column.
    if (!(error instanceof XmlError) || error.kind === 'template') throw error;
    throw new XmlError('template', error.reason, { line: error.line, column: error.column });
  }
  return pieces.map((piece) => {
    if (typeof piece === 'string') return piece;
    const index = holes.indexOf(piece);
    const context = contexts[index];
    if (context === undefined) throw templateError(text, piece.offset, 'a placeholder can stand only in element text or an attribute value');
    return { expression: piece.expression, context, ...lineColumn(text, piece.offset) };
  }).filter((part) => part !== '');
}

/** The template with each hole's value (in order) escaped for its place. */
export function fillXmlTemplate(parts: readonly TemplatePart[], values: readonly unknown[]): string {
  let out = '';
  let hole = 0;
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const value = values[hole];
    hole += 1;
    const path = `{${part.expression}} at ${part.line}:${part.column}`;
    if (value === null || value === undefined) throw new XmlError('unwritable', `${path} gave no value`, { path });
    const textValue = scalarText(value, path);
    out += part.context === 'text' ? escapeText(textValue) : escapeAttribute(textValue);
  }
  return out;
}
