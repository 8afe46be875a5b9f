/**
 * Each `file:line:col` of a mapping in a text (a trace's step, a test's difference or failure) as a link
 * that opens the Editor at that place: `#/editor/<file>:<line>:<col>`, which the Editor page follows.
 */
const PLACE = /([\w./-]+\.ya?ml):(\d+)(?::(\d+))?/g;

export interface Place {
  file: string;
  /** Absent: the file, with the cursor where it was (`#/editor/<file>`). */
  line?: number;
  col: number;
}

/** The place an address asks the Editor to open, if any. */
export function placeOf(hash: string): Place | undefined {
  const found = /^#\/editor\/(.+\.ya?ml)(?::(\d+)(?::(\d+))?)?$/.exec(decodeURI(hash));
  return found ? { file: found[1], line: found[2] === undefined ? undefined : Number(found[2]), col: Number(found[3] ?? 1) } : undefined;
}

export function SourceLinks(props: { text: string; files: readonly string[] }) {
  const parts: (string | { text: string; href: string })[] = [];
  let last = 0;
  for (const found of props.text.matchAll(PLACE)) {
    // A test file's place stays text: the Editor opens mapping files.
    if (!props.files.includes(found[1])) continue;
    const at = found.index ?? 0;
    parts.push(props.text.slice(last, at), { text: found[0], href: `#/editor/${encodeURI(found[0])}` });
    last = at + found[0].length;
  }
  parts.push(props.text.slice(last));
  return <>{parts.map((part, index) => (typeof part === 'string' ? part : <a key={index} class="source-link" href={part.href}>{part.text}</a>))}</>;
}
