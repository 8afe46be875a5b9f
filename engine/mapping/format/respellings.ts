import jsonata from 'jsonata';
import { LRUCache } from 'lru-cache';

/**
 * Settings an earlier version of the format spelt differently. Files written the old way keep loading:
 * the loader reads each old spelling as the new one and warns with the line (OLD_SPELLING), and
 * `adapter-engine validate --fix` rewrites the file to the current spellings. One table serves both, so
 * what the loader accepts and what --fix writes cannot drift apart.
 */

type Segment = string | number;

interface KeyRespelling {
  readonly kind: 'key';
  /** The block that holds the setting; '*' stands for any name or list index. */
  readonly block: readonly string[];
  readonly from: string;
  readonly to: string;
  /** The value in the new spelling, when its unit changed too. */
  readonly convert?: (old: number) => number;
  readonly why: string;
}

interface ExpressionRespelling {
  readonly kind: 'expression';
  readonly block: readonly string[];
  readonly keys: readonly string[];
  /** Where text goes into the expression to spell it the new way; none when it already is. */
  readonly insertions: (text: string) => readonly Insertion[];
  readonly why: string;
}

type Respelling = KeyRespelling | ExpressionRespelling;

export interface Insertion {
  /** Offset in the expression text. */
  readonly at: number;
  readonly text: string;
}

export function applyInsertions(text: string, insertions: readonly Insertion[]): string {
  let out = text;
  for (const insertion of [...insertions].sort((a, b) => b.at - a.at)) out = `${out.slice(0, insertion.at)}${insertion.text}${out.slice(insertion.at)}`;
  return out;
}

const CALL = ['operations', '*', 'calls', '*'];

/**
 * Pagination expressions once saw the page as `{ status, headers, body }`; now, like outcome rules, they
 * see it as `response`. Names at the root of the expression (not inside a path or a predicate) are the
 * ones that meant the page; each gets `response.` in front.
 */
const PAGE_NAMES = new Set(['status', 'headers', 'body']);

interface AstNode { type: string; value?: unknown; position?: number; steps?: AstNode[]; [key: string]: unknown }

/** Insertions by pagination text: each file of one template would parse the same expressions again. */
const PAGE_INSERTIONS = new LRUCache<string, readonly Insertion[]>({ max: 512 });

export function pageRootToResponse(text: string): readonly Insertion[] {
  const known = PAGE_INSERTIONS.get(text);
  if (known) return known;
  const insertions = pageNamesIn(text);
  PAGE_INSERTIONS.set(text, insertions);
  return insertions;
}

function pageNamesIn(text: string): readonly Insertion[] {
  let ast: AstNode;
  try {
    ast = jsonata(text).ast() as AstNode;
  } catch {
    return []; // the compiler reports the syntax error on the text as written
  }
  const starts: number[] = [];
  const nameStart = (node: AstNode): number | undefined => {
    const name = String(node.value);
    const end = node.position ?? 0;
    if (text.slice(end - name.length, end) === name) return end - name.length;
    if (text.slice(end - name.length - 2, end) === `\`${name}\``) return end - name.length - 2;
    return undefined;
  };
  const visit = (node: unknown, atRoot: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, atRoot);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const typed = node as AstNode;
    if (typed.type === 'name' && atRoot && PAGE_NAMES.has(String(typed.value))) {
      const start = nameStart(typed);
      if (start !== undefined) starts.push(start);
    }
    if (typed.type === 'path' && typed.steps) {
      const [first, second, ...rest] = typed.steps;
      visit(first, atRoot);
      // `$.body`: the step after the context variable is at the root as well.
      const afterContext = first?.type === 'variable' && first.value === '';
      visit(second, atRoot && afterContext);
      visit(rest, false);
      return;
    }
    if (typed.type === 'lambda') return;
    for (const [key, child] of Object.entries(typed)) {
      if (key === 'position' || key === 'value' || key === 'type') continue;
      const inside = key === 'stages' || key === 'predicate' || key === 'group' || key === 'focus';
      visit(child, atRoot && !inside);
    }
  };
  visit(ast, true);
  return starts.map((at) => ({ at, text: 'response.' }));
}

const RESPELLINGS: readonly Respelling[] = [
  { kind: 'key', block: [...CALL, 'cache'], from: 'ttlSeconds', to: 'ttlMs', convert: (seconds) => seconds * 1000, why: 'durations are milliseconds everywhere' },
  { kind: 'key', block: [...CALL, 'forEach'], from: 'concurrency', to: 'maxConcurrency', why: 'one word for one idea: system.maxConcurrency' },
  { kind: 'expression', block: [...CALL, 'paginate'], keys: ['items', 'hasMore', 'next'], insertions: pageRootToResponse, why: 'every expression that sees the ERP answer calls it response' },
];

/** Every concrete path of a block the pattern matches in `value`. */
function blocksAt(value: unknown, pattern: readonly string[], at: Segment[] = []): Segment[][] {
  if (pattern.length === 0) return value && typeof value === 'object' && !Array.isArray(value) ? [at] : [];
  if (!value || typeof value !== 'object') return [];
  const [head, ...rest] = pattern;
  const entries: [Segment, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  return entries.filter(([key]) => head === '*' || key === head).flatMap(([key, child]) => blocksAt(child, rest, [...at, key]));
}

export interface RespellingFound {
  /** Path of the setting as written. */
  readonly path: readonly Segment[];
  readonly respelling: Respelling;
  readonly message: string;
  /** Both spellings in one block: the file must choose. */
  readonly clash: boolean;
}

function named(path: readonly Segment[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

/**
 * Reads a parsed document in the current spellings. Returns the value to check and compile (the input is
 * not changed) and one finding per old spelling.
 */
export function respell(value: unknown): { value: unknown; found: RespellingFound[] } {
  const found: RespellingFound[] = [];
  let copy: unknown;
  const writable = (): unknown => (copy ??= structuredClone(value));
  for (const respelling of RESPELLINGS) {
    for (const blockPath of blocksAt(value, respelling.block)) {
      const original = blockPath.reduce<unknown>((node, key) => (node as Record<Segment, unknown>)[key], value) as Record<string, unknown>;
      const target = (): Record<string, unknown> => blockPath.reduce<unknown>((node, key) => (node as Record<Segment, unknown>)[key], writable()) as Record<string, unknown>;
      if (respelling.kind === 'key') {
        if (!(respelling.from in original)) continue;
        const path = [...blockPath, respelling.from];
        const clash = respelling.to in original;
        const converted = typeof original[respelling.from] === 'number' && respelling.convert ? respelling.convert(original[respelling.from] as number) : original[respelling.from];
        const message = clash
          ? `${named(blockPath)} has both ${respelling.from} (the old spelling) and ${respelling.to}; keep ${respelling.to}`
          : `${named(path)} is now spelt ${respelling.to}${respelling.convert ? ` (write ${respelling.to}: ${JSON.stringify(converted)})` : ''}: ${respelling.why}; it still loads, and adapter-engine validate --fix rewrites it`;
        found.push({ path, respelling, message, clash });
        if (!clash) {
          const block = target();
          delete block[respelling.from];
          block[respelling.to] = converted;
        }
        continue;
      }
      for (const key of respelling.keys) {
        const text = original[key];
        if (typeof text !== 'string') continue;
        const insertions = respelling.insertions(text);
        if (insertions.length === 0) continue;
        const rewritten = applyInsertions(text, insertions);
        found.push({ path: [...blockPath, key], respelling, clash: false, message: `${named([...blockPath, key])} reads the page by its old name; write ${rewritten}: ${respelling.why}; it still loads, and adapter-engine validate --fix rewrites it` });
        target()[key] = rewritten;
      }
    }
  }
  return { value: copy ?? value, found };
}

/** One change --fix makes to the file text: replace `length` characters at `offset` by `text`. */
export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly text: string;
}

/** Applies edits to a text; edits do not overlap. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) out = `${out.slice(0, edit.offset)}${edit.text}${out.slice(edit.offset + edit.length)}`;
  return out;
}
