import fs from 'node:fs';
import path from 'node:path';
import { blocksOf, ROOT } from './markdown';

/**
 * Doctests: a shell block followed (blank lines only between) by a `text` block shows a command and
 * what it prints. The test runs the command and compares what it prints (stdout and stderr, in order)
 * with the text block, where these placeholders stand for what changes from run to run:
 *
 *   <time>      a date-time (2026-11-25T19:31:18.123Z) or a time of day (19:31:18)
 *   <id>        an id: letters, digits and dashes (a UUID, a short id)
 *   <port>      a port number
 *   <n>         a whole number (a count that depends on the machine)
 *   <duration>  a duration: a number, maybe with decimals and a unit (17, 1.2 s, 340ms)
 *   …           alone on a line (indented or not): any lines, or none; inside a line: any text on that line
 *
 * A block opts out only with a marker a reader sees and that says why, a comment line in the block:
 * `# long-running` first (a server that does not end), or `# not checked here: <reason>`.
 */
export interface Doctest {
  readonly file: string;
  /** 1-based line of the shell block's fence. */
  readonly line: number;
  readonly script: string;
  readonly shown: string;
  /** `# needs a running engine`: run against `serve --example-erp` (ports 8080, 8081, 8082, admin 9090 in the text). */
  readonly needsEngine: boolean;
  /** Why it is not run, from its marker. */
  readonly skip?: string;
}

const SKIP_MARKER = /^# not checked here: (.+)$/m;

/** Why a block is not run, from the marker a reader sees in it (`# long-running`, `# not checked here: …`). */
function skipOf(text: string): string | undefined {
  return SKIP_MARKER.exec(text)?.[1] ?? (/^# long-running/.test(text) ? 'long-running: a server that does not end' : undefined);
}

/**
 * A shell block without shown output: it is run, and must exit 0 (or 1 where it opens with
 * `# exits 1`), unless its marker says why not.
 */
export interface RunBlock {
  readonly file: string;
  readonly line: number;
  readonly script: string;
  readonly needsEngine: boolean;
  readonly exitCode: number;
  readonly skip?: string;
}

export function runBlocksOf(file: string): RunBlock[] {
  const shown = new Set(doctestsOf(file).map((doctest) => doctest.line));
  return blocksOf(file).filter((block) => block.lang === 'sh' && !shown.has(block.line)).map((block) => ({
    file, line: block.line, script: block.text, needsEngine: /^# needs a running engine/.test(block.text),
    exitCode: /^# exits 1/m.test(block.text) ? 1 : 0, skip: skipOf(block.text),
  }));
}

export function doctestsOf(file: string): Doctest[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks = blocksOf(file);
  const doctests: Doctest[] = [];
  blocks.forEach((block, index) => {
    const next = blocks[index + 1];
    if (block.lang !== 'sh' || next?.lang !== 'text') return;
    const closing = block.line + block.text.split('\n').length; // 1-based line of the closing fence
    if (lines.slice(closing, next.line - 1).some((line) => line.trim() !== '')) return;
    doctests.push({ file, line: block.line, script: block.text, shown: next.text, needsEngine: /^# needs a running engine/.test(block.text), skip: skipOf(block.text) });
  });
  return doctests;
}

const PLACEHOLDERS: Record<string, string> = {
  '<time>': String.raw`(?:\d{4}-\d{2}-\d{2}[T ])?\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?`,
  '<id>': String.raw`[0-9A-Za-z][0-9A-Za-z-]*`,
  '<port>': String.raw`\d{1,5}`,
  '<n>': String.raw`\d+`,
  '<duration>': String.raw`\d+(?:\.\d+)?(?: ?(?:ms|s|min|h))?`,
};

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The shown text as a pattern: placeholders for what changes, everything else as written (trailing blanks aside). */
export function shownPattern(shown: string): RegExp {
  const lines = shown.trimEnd().split('\n').map((line) => line.trimEnd());
  const parts = lines.map((line) => {
    if (line.trim() === '…') return String.raw`(?:[^\n]*\n)*?`;
    const pattern = line.split(/(<time>|<id>|<port>|<n>|<duration>|…)/).map((piece) => (piece === '…' ? '[^\\n]*' : PLACEHOLDERS[piece] ?? escape(piece))).join('');
    return `${pattern}\n`;
  });
  return new RegExp(`^${parts.join('')}$`);
}

/** What a command printed, as compared: trailing blanks of each line and trailing empty lines dropped. */
export function printed(output: string): string {
  return `${output.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd()}\n`;
}
