/**
 * `delimiter: auto`: the candidate (`,` `;` tab) that occurs most often, outside quotes, in the first
 * line that holds data (the header, usually). A tie goes to the earlier candidate in that list; a line
 * with none of them is a one-column file, for which the choice does not matter.
 */
const DELIMITER_CANDIDATES = [',', ';', '\t'] as const;

/**
 * `complete` false: `text` is the start of a file whose rest has not arrived yet; the answer is undefined
 * until a line with data is complete in it (a line cut off at the end might hold more delimiters).
 */
export function detectDelimiter(text: string, quote: string, comment: string | undefined, complete = true): string | undefined {
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) {
      if (!complete) return undefined;
      lineEnd = text.length;
    }
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
    lineStart = lineEnd + 1;
    if (line.trim() === '' || (comment && line.startsWith(comment))) continue;
    const counts = DELIMITER_CANDIDATES.map(() => 0);
    let quoted = false;
    for (const char of line) {
      if (quote && char === quote) quoted = !quoted;
      else if (!quoted) {
        const candidate = DELIMITER_CANDIDATES.indexOf(char as (typeof DELIMITER_CANDIDATES)[number]);
        if (candidate !== -1) counts[candidate] += 1;
      }
    }
    const best = counts.indexOf(Math.max(...counts));
    return DELIMITER_CANDIDATES[best];
  }
  return complete ? DELIMITER_CANDIDATES[0] : undefined;
}
