/**
 * The one error of engine/xml/. `kind` says what went wrong; the pipeline maps the reading kinds
 * (`malformed`, `doctype`, `limit`, `encoding`, `clash`) to ERP_BODY_UNREADABLE, `unwritable` to a
 * failed request naming `path`, and `template` to a load issue at `line`:`column` of the template.
 */
export type XmlErrorKind =
  /** Not well-formed XML, truncated, or a namespace prefix nobody declared. */
  | 'malformed'
  /** A DOCTYPE: refused whatever it holds, so no entity is ever expanded (billion laughs, XXE). */
  | 'doctype'
  /** Deeper, larger or longer than the reading limits allow. */
  | 'limit'
  /** The bytes are not text in the encoding they declare, or the encoding is unknown. */
  | 'encoding'
  /** Two siblings with one local name in different namespaces, read without prefixed keys. */
  | 'clash'
  /** A value that XML cannot hold (a control character, a lone surrogate, a name that is not a name). */
  | 'unwritable'
  /** A bodyXml template that is not well-formed, or a placeholder where a value could add markup. */
  | 'template';

/** `message` is `reason` followed by ` (line L, column C)` when the error has a place. */
export class XmlError extends Error {
  readonly kind: XmlErrorKind;
  readonly reason: string;
  /** Where in the document or template (1-based), when the problem has a place there. */
  readonly line?: number;
  readonly column?: number;
  /** The field of the written value (`Order.Lines[2].Description`), for `unwritable`. */
  readonly path?: string;

  constructor(kind: XmlErrorKind, reason: string, where: { line?: number; column?: number; path?: string } = {}) {
    super(where.line === undefined ? reason : `${reason} (line ${where.line}, column ${where.column ?? 1})`);
    this.name = 'XmlError';
    this.kind = kind;
    this.reason = reason;
    this.line = where.line;
    this.column = where.column;
    this.path = where.path;
  }
}
