import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Node, type Pair, type Scalar } from 'yaml';
import type { MappingIssue, MappingIssueCode } from '../errors';
import { ENV_FORMS, replaceReferences, resolveReference, type EnvReference } from './env-references';

/**
 * A mapping file as a YAML document that remembers where everything is, so every later check can
 * report `file:line:col`. Also the only place `${VAR}` is expanded.
 */
export type PathSegment = string | number;

export interface YamlSource {
  readonly file: string;
  readonly value: unknown;
  /** Position of the value at `path`, or of the nearest ancestor that exists. */
  at(path: readonly PathSegment[]): { line: number; col: number };
  /** Position of the key of `path` (for "unknown setting" messages). */
  keyAt(path: readonly PathSegment[]): { line: number; col: number };
  /** Position of character `offset` of the string value at `path` (for errors inside expressions). */
  insideString(path: readonly PathSegment[], offset: number): { line: number; col: number };
  /** How the string value at `path` reads environment variables; undefined when it has no `${VAR}`. */
  envAt(path: readonly PathSegment[]): EnvUse | undefined;
}

interface EnvUse {
  /** A reference has its default written in the file (`${VAR:-default}`). */
  readonly hasDefault: boolean;
  /**
   * Variables the value reads that are not set; their `${...}` text stays in the value. Only when unset
   * variables are warnings (checking a mapping without the customer's secrets): else they are errors.
   */
  readonly unset: readonly string[];
  /** Every variable the value reads, in order. */
  readonly names: readonly string[];
}

/** Whether an unset variable stops the load (serve, calls to the ERP) or is a warning (checks that send nothing). */
export type UnsetVariables = 'error' | 'warning';

/** Aliases are a YAML feature integrators rarely need; a low cap stops "billion laughs" documents. */
const MAX_ALIAS_COUNT = 100;

type Issue = Omit<MappingIssue, 'file'>;

function issue(code: MappingIssueCode, message: string, pos: { line: number; col: number }, severity: 'error' | 'warning' = 'error'): Issue {
  return { code, message, severity, line: pos.line, col: pos.col, path: '' };
}

/**
 * `env` null reads the text as it is, without `${VAR}` expansion: test and recorded-answer files hold
 * literal ERP answers, in which `${` is ordinary text.
 */
/** The parser's complaints that come from a line indented wrongly (or with tabs). */
const INDENTATION_ERRORS = new Set(['BAD_INDENT', 'TAB_AS_INDENT', 'MISSING_CHAR', 'BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/**
 * The line to fix when the parser's complaint is one of indentation, at its first character. A block
 * nested under a plain value (`baseUrl: x` followed by a deeper line) is reported at the value: the
 * deeper line after it is the one to fix.
 */
function indentationLine(code: string, at: { line: number; col: number }, lines: readonly string[]): { line: number; col: number } | undefined {
  if (!INDENTATION_ERRORS.has(code)) return undefined;
  let index = at.line - 1;
  const indent = (text: string) => text.length - text.replace(/^[ \t]+/, '').length;
  if (code === 'BLOCK_AS_IMPLICIT_KEY' || code === 'MULTILINE_IMPLICIT_KEY') {
    const next = lines.findIndex((line, i) => i > index && line.trim() !== '' && !line.trimStart().startsWith('#'));
    // Not followed by a deeper line: a second "key:" on one line (name: a: b), no matter of indentation.
    if (next === -1 || indent(lines[next]) <= indent(lines[index] ?? '')) return undefined;
    index = next;
  }
  return { line: index + 1, col: indent(lines[index] ?? '') + 1 };
}

export function parseYamlSource(file: string, text: string, env: NodeJS.ProcessEnv | null, unsetVariables: UnsetVariables = 'error'): { source?: YamlSource; issues: MappingIssue[] } {
  const lineCounter = new LineCounter();
  const lines = text.split('\n');
  // merge: YAML's merge key (`<<: *defaults`) takes an anchored block's settings, the block's own keys winning.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, strict: true, prettyErrors: false, merge: true });
  const issues: Issue[] = [];
  const posOf = (offset: number) => lineCounter.linePos(Math.max(0, offset));

  for (const error of doc.errors) {
    if (error.code === 'DUPLICATE_KEY') {
      issues.push(issue('YAML_DUPLICATE_KEY', 'this key appears twice in the same block; keep one', posOf(error.pos[0])));
      continue;
    }
    const misindented = indentationLine(error.code, posOf(error.pos[0]), lines);
    // One mistake of indentation often gives the parser two complaints about the same place: say it once.
    if (misindented && issues.some((known) => known.line === misindented.line && known.col === misindented.col)) continue;
    const tabs = error.code === 'TAB_AS_INDENT' ? ' (indent with spaces)' : '';
    issues.push(issue('YAML_SYNTAX', `YAML: ${error.message.split('\n')[0]}${tabs}${misindented ? `; check the indentation of line ${misindented.line}` : ''}`, misindented ?? posOf(error.pos[0])));
  }
  for (const warning of doc.warnings) {
    issues.push(issue('YAML_WARNING', `YAML: ${warning.message.split('\n')[0]} (the engine accepts plain YAML only)`, posOf(warning.pos[0])));
  }
  if (issues.length > 0) return { issues: issues.map((i) => ({ ...i, file })) };

  const scalarPosition = (node: Scalar, offset: number) => {
    const start = node.range?.[0] ?? 0;
    if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
      const value = String(node.value);
      const before = value.slice(0, offset);
      const lineIndex = before.split('\n').length - 1;
      const col = offset - (before.lastIndexOf('\n') + 1);
      const headerLine = posOf(start).line; // 1-based line of the `|` indicator
      const firstContent = lines.slice(headerLine).find((line) => line.trim() !== '') ?? '';
      const indent = firstContent.length - firstContent.trimStart().length;
      return { line: headerLine + 1 + lineIndex, col: indent + col + 1 };
    }
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
    return posOf(start + quoted + offset);
  };

  // ${VAR} expansion happens on the document, before conversion, so an unset variable has a position.
  const envUse = new WeakMap<Node, EnvUse>();
  const reported = new Set<string>();
  if (env) visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return;
      const unset: string[] = [];
      const names: string[] = [];
      let hasDefault = false;
      let reads = false;
      node.value = replaceReferences(node.value, (reference) => {
        if (reference.kind === 'escape') return '${';
        const at = scalarPosition(node, reference.index);
        if (reference.kind === 'invalid') {
          issues.push(issue('ENV_REFERENCE_INVALID', `"${reference.text}" is not a valid variable reference; write ${ENV_FORMS}, the name made of letters, digits and _ (or $\${ for a literal \${)`, at));
          return reference.text;
        }
        reads = true;
        names.push(reference.name);
        hasDefault ||= reference.fallback !== undefined;
        const resolved = resolveReference(reference, env);
        if ('value' in resolved) return resolved.value;
        unset.push(reference.name);
        // Each variable once, where it is first used: one missing secret is one line, however often it is read.
        if (!reported.has(reference.name)) issues.push(unsetIssue(reference, resolved.unset, at, unsetVariables));
        reported.add(reference.name);
        return reference.text;
      });
      if (reads) envUse.set(node, { hasDefault, unset, names });
    },
  });
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    issues.push(issue('YAML_ALIAS_LIMIT', `YAML aliases expand too much (more than ${MAX_ALIAS_COUNT}); write the values out instead of using many *aliases`, { line: 1, col: 1 }));
  }
  if (issues.some((i) => i.severity === 'error')) return { issues: issues.map((i) => ({ ...i, file })) };

  // What each *alias stands for, found in one pass when first asked: the node of the last &anchor of
  // that name before it, as yaml's Alias.resolve finds it, which walks the document from its start on
  // every call (two pushes sharing one auth block walked the whole file for each secret they read).
  let aliasTargets: Map<Node, Node | undefined> | undefined;
  const resolveAlias = (alias: Node): Node | undefined => {
    if (!aliasTargets) {
      const targets = new Map<Node, Node | undefined>();
      const anchors = new Map<string, Node>();
      visit(doc, {
        Node(_key, node) {
          if (isAlias(node)) targets.set(node, anchors.get(node.source));
          else if (node.anchor) anchors.set(node.anchor, node);
        },
      });
      aliasTargets = targets;
    }
    return aliasTargets.get(alias);
  };

  /**
   * The pair of `key` in a block, where the value the document gives comes from: the block's own, else
   * (a merge key) the first merged block that has it, as yaml's toJS reads them.
   */
  const pairIn = (block: unknown, key: PathSegment, depth = 0): Pair | undefined => {
    const node = isAlias(block) ? resolveAlias(block) : block;
    if (!isMap(node) || depth > MAX_ALIAS_COUNT) return undefined;
    const own = node.items.find((item) => isScalar(item.key) && item.key.value === key);
    if (own) return own;
    for (const item of node.items) {
      if (!isScalar(item.key) || typeof item.key.value !== 'symbol') continue;
      const merged = isSeq(item.value) ? item.value.items : [item.value];
      for (const source of merged) {
        const found = pairIn(source, key, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  /** The node at `path`, through *aliases and merge keys: where the value was written. */
  const nodeAt = (path: readonly PathSegment[]): unknown => {
    let node: unknown = doc.contents;
    for (const segment of path) {
      if (isAlias(node)) node = resolveAlias(node);
      node = isSeq(node) ? node.get(segment, true) : pairIn(node, segment)?.value;
    }
    return isAlias(node) ? resolveAlias(node) : node;
  };

  const source: YamlSource = {
    file,
    value,
    at(path) {
      for (let depth = path.length; depth >= 0; depth -= 1) {
        const node = nodeAt(path.slice(0, depth)) as Node | undefined;
        if (node && typeof node === 'object' && 'range' in node && node.range) return posOf(node.range[0]);
      }
      return { line: 1, col: 1 };
    },
    keyAt(path) {
      const pair = path.length > 0 ? pairIn(nodeAt(path.slice(0, -1)), path[path.length - 1]) : undefined;
      if (pair && isScalar(pair.key) && pair.key.range) return posOf(pair.key.range[0]);
      return this.at(path);
    },
    insideString(path, offset) {
      const node = nodeAt(path);
      if (isScalar(node)) return scalarPosition(node, offset);
      return this.at(path);
    },
    envAt(path) {
      // Through aliases: a secret written once under an &anchor and reused as *alias still comes from its ${VAR}.
      const node = nodeAt(path);
      return isScalar(node) ? envUse.get(node) : undefined;
    },
  };
  return { source, issues: issues.map((i) => ({ ...i, file })) };
}

function unsetIssue(reference: Extract<EnvReference, { kind: 'variable' }>, message: string, at: { line: number; col: number }, unsetVariables: UnsetVariables): Issue {
  const what = `environment variable ${reference.name} is not set${message ? `: ${message}` : ''}`;
  if (unsetVariables === 'warning') return issue('ENV_UNSET', `${what}; checked without it (serve and live calls need it)`, at, 'warning');
  return issue('ENV_UNSET', `${what}; set it in the environment or in an --env-file before starting the engine (or write $\${${reference.name}} for the literal text)`, at);
}
