import { parseYamlSource } from '../yaml-source';
import { applyEdits, respell, type RespellingFound, type TextEdit } from './respellings';

/**
 * `adapter-engine validate --fix`: the file rewritten to the current spellings. The text is edited in
 * place, key by key and character by character, so comments, quoting, block scalars and layout stay as
 * the integrator wrote them. `${VAR}` stays as written (the file is read without expanding it).
 */
export interface FixResult {
  /** The new text; the same text when nothing needed fixing or the file cannot be read as YAML. */
  readonly text: string;
  readonly changes: readonly (RespellingFound & { readonly line: number; readonly col: number })[];
}

export function fixSpellings(file: string, text: string): FixResult {
  const parsed = parseYamlSource(file, text, null);
  if (!parsed.source) return { text, changes: [] };
  const source = parsed.source;
  const lineStarts = [0];
  for (let index = 0; index < text.length; index++) if (text[index] === '\n') lineStarts.push(index + 1);
  const offsetOf = (pos: { line: number; col: number }) => lineStarts[pos.line - 1] + pos.col - 1;

  const edits: TextEdit[] = [];
  const changes: FixResult['changes'][number][] = [];
  for (const finding of respell(source.value).found) {
    if (finding.clash) continue;
    const { respelling, path } = finding;
    if (respelling.kind === 'key') {
      const keyPos = source.keyAt(path);
      const keyOffset = offsetOf(keyPos);
      if (text.slice(keyOffset, keyOffset + respelling.from.length) !== respelling.from) continue; // a quoted key: leave it to the integrator
      edits.push({ offset: keyOffset, length: respelling.from.length, text: respelling.to });
      const old = (path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], source.value) as Record<string, unknown>)[respelling.from];
      if (respelling.convert && typeof old === 'number') {
        const valueOffset = offsetOf(source.at(path));
        const written = String(old);
        if (text.slice(valueOffset, valueOffset + written.length) === written) edits.push({ offset: valueOffset, length: written.length, text: String(respelling.convert(old)) });
      }
      changes.push({ ...finding, ...keyPos });
      continue;
    }
    const expression = path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], source.value);
    if (typeof expression !== 'string') continue;
    for (const insertion of respelling.insertions(expression)) edits.push({ offset: offsetOf(source.insideString(path, insertion.at)), length: 0, text: insertion.text });
    changes.push({ ...finding, ...source.at(path) });
  }
  return { text: applyEdits(text, edits), changes };
}
