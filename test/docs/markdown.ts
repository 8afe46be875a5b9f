import fs from 'node:fs';
import path from 'node:path';

/** The documentation files and what tests read in them: fenced blocks, links, headings. */
export const ROOT = path.resolve(__dirname, '..', '..');

export function docFiles(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', 'CHANGELOG.md', 'bench/README.md', ...docs];
}

export interface Block {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly text: string;
}

export function blocksOf(file: string): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\S*)\s*$/.exec(lines[index]);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index]); index++) body.push(lines[index]);
    blocks.push({ file, line: start + 1, lang: open[1], text: `${body.join('\n')}\n` });
  }
  return blocks;
}

/** GitHub's anchor of a heading. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/<[^>]+>/g, '').replace(/&lt;|&gt;/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

export function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of text.matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const base = slug(match[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export function linksOf(file: string): { target: string; line: number }[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const links: { target: string; line: number }[] = [];
  let inFence = false;
  lines.forEach((line, index) => {
    if (/^```/.test(line)) inFence = !inFence;
    if (inFence) return;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: match[1], line: index + 1 });
  });
  return links;
}

/** A documented command line `NAME=value npx adapter-engine ...`: its variables and the words after `npx adapter-engine`. */
export function commandOf(line: string): { args: string[]; env: Record<string, string> } {
  const words = line.replace(/\s+#.*$/, '').match(/'[^']*'|"[^"]*"|\S+/g)!.map((word) => word.replace(/^(['"])(.*)\1$/, '$2'));
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  return { args: words.slice(2), env };
}
