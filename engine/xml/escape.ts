import { XmlError } from './errors';

/**
 * Values → XML text, for the writer and the bodyXml templates alike: a value can never add markup.
 * Text escapes `& < >` (`>` so that `]]>` is never written as such); an attribute value also escapes
 * its quote and the tab and line ends that attribute-value normalisation would turn into spaces. `\r`
 * is a character reference everywhere, because a parser turns a bare one into `\n`.
 */

/** Characters outside XML 1.0's Char production: control characters, lone surrogates, U+FFFE/FFFF. */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
const ATTRIBUTE_ESCAPES: Record<string, string> = { ...TEXT_ESCAPES, '"': '&quot;', "'": '&apos;', '\t': '&#9;', '\n': '&#10;' };

export function escapeText(text: string): string {
  return text.replace(/[&<>\r]/g, (char) => TEXT_ESCAPES[char]);
}

export function escapeAttribute(text: string): string {
  return text.replace(/[&<>\r"'\t\n]/g, (char) => ATTRIBUTE_ESCAPES[char]);
}

function codePoint(text: string): string {
  const code = (text.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return `U+${code}`;
}

/** A string, number or boolean as XML text (numbers as JSON writes them); anything else fails naming `path`. */
export function scalarText(value: unknown, path: string): string {
  if (typeof value === 'string') {
    const bad = NOT_XML_CHAR.exec(value);
    if (bad) throw new XmlError('unwritable', `${path} holds ${codePoint(bad[0])}, a character XML 1.0 cannot hold`, { path });
    return value;
  }
  if (typeof value === 'number') {
    // JSON would write null for these, and a missing element is not what anyone meant by a NaN quantity.
    if (!Number.isFinite(value)) throw new XmlError('unwritable', `${path} is ${value}, which is not a number XML can carry`, { path });
    return JSON.stringify(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  throw new XmlError('unwritable', `${path} is ${Array.isArray(value) ? 'a list' : typeof value}, where a text, number or boolean is needed`, { path });
}
