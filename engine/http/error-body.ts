/**
 * The body of an error answer (status 400 and above) to a call that expects binary data (an image): an
 * ERP then answers a JSON error or an error page, and the outcome rules read it by its content type
 * (`response.body.error.code`) instead of as Base64. Bytes of any other type stay Base64.
 */
const JSON_CONTENT = /^\s*application\/([\w.+-]*\+)?json\b/i;
const TEXT_CONTENT = /^\s*(text\/|application\/([\w.+-]*\+)?xml\b)/i;

export function decodeErrorBody(data: Buffer, contentType: string): { body: unknown } {
  if (data.length === 0) return { body: null };
  const text = () => data.toString('utf8');
  if (JSON_CONTENT.test(contentType)) {
    try {
      return { body: JSON.parse(text()) };
    } catch {
      return { body: text() }; // a JSON type with a body that is not JSON: still readable as text
    }
  }
  if (TEXT_CONTENT.test(contentType)) return { body: text() };
  return { body: data.toString('base64') };
}
