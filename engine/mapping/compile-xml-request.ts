import { XmlError } from '../xml/errors';
import { parseXmlTemplate } from '../xml/template';
import type { CompileHelpers } from './compile-connectivity';
import type { CallDocument } from './format/mapping';
import type { CallSpec, Template, XmlTemplatePart } from './model';
import type { PathSegment } from './yaml-source';

/**
 * A call's XML request settings: a `bodyXml` template, checked well-formed here with each placeholder
 * compiled at its own place in the file, and a `soap:` block's action template.
 */

/** What the XML settings need of the compiler beyond the connectivity helpers. */
export interface XmlRequestHelpers extends CompileHelpers {
  expression(text: string, path: readonly PathSegment[], offsetInString?: number): CallSpec['body'];
  template(text: string, path: readonly PathSegment[]): Template | undefined;
}

const named = (path: readonly PathSegment[]) => path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');

/** Offset of a 1-based line and column inside a text. */
function offsetOf(text: string, line: number, column: number): number {
  return text.split('\n').slice(0, line - 1).reduce((sum, row) => sum + row.length + 1, 0) + column - 1;
}

function compileBodyXml(h: XmlRequestHelpers, text: string, at: readonly PathSegment[]): XmlTemplatePart[] | false {
  let parts;
  try {
    parts = parseXmlTemplate(text);
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    h.report('TEMPLATE_SYNTAX', at, `${named(at)}: ${error.reason}`, h.source.insideString(at, offsetOf(text, error.line ?? 1, error.column ?? 1)));
    return false;
  }
  const compiled: XmlTemplatePart[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      compiled.push(part);
      continue;
    }
    // The placeholder's text starts after its brace.
    const expression = h.expression(part.expression, at, offsetOf(text, part.line, part.column) + 1);
    if (!expression) return false;
    compiled.push({ expression, context: part.context });
  }
  return compiled;
}

export function compileXmlRequest(h: XmlRequestHelpers, raw: CallDocument, path: readonly PathSegment[]): { bodyXml?: XmlTemplatePart[]; soap?: CallSpec['soap'] } | false {
  if (raw.body !== undefined && raw.bodyXml !== undefined) {
    h.report('SETTINGS_DISAGREE', [...path, 'bodyXml'], `${named(path)} has both body and bodyXml; one call sends one body`);
    return false;
  }
  if (raw.requestType === 'xml' && raw.soap) h.warn('SETTINGS_DISAGREE', [...path, 'requestType'], `${named(path)}.requestType has no effect beside soap:, which always writes XML`);
  const bodyXml = raw.bodyXml === undefined ? undefined : compileBodyXml(h, raw.bodyXml, [...path, 'bodyXml']);
  if (bodyXml === false) return false;
  if (!raw.soap) return { bodyXml };
  const action = raw.soap.action === undefined ? undefined : h.template(raw.soap.action, [...path, 'soap', 'action']);
  if (raw.soap.action !== undefined && !action) return false;
  return { bodyXml, soap: { version: raw.soap.version, action } };
}
