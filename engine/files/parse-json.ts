import { fileInvalid } from './problems';

/**
 * JSON text → value, with the place of a syntax error as line and column (what an operator finds in
 * an editor) instead of V8's character offset. Blank text is an empty file, not an error.
 */

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

export function parseJsonFile(text: string): { empty: true } | { empty: false; value: unknown } {
  if (text.trim() === '') return { empty: true };
  try {
    return { empty: false, value: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : text.length;
    const cutOff = !position || /end of JSON input|Unterminated/i.test(message);
    const reason = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    throw fileInvalid(lineAndColumn(text, offset), cutOff ? `the JSON ends too early (is the file cut off?): ${reason}` : `the file is not valid JSON: ${reason}`);
  }
}
