import type { MappingIssue } from '../errors';
import { closest, describePath } from './check-structure';
import type { PathSegment, YamlSource } from './yaml-source';

/**
 * Call templates (`system.calls.<name>`, taken by a call with `use: <name>`), written into the calls
 * before the structure check, so every later stage sees plain calls and knows nothing of templates. What
 * a call took from its template is still found where it is written: the source given on answers the
 * position of `operations.X.calls[0].headers.Accept` with that of `system.calls.rpc.headers.Accept`, and
 * `attribute` names the template and the calls using it in each problem found there.
 *
 * How settings meet: headers and query are merged name by name, the call's names winning; any other
 * setting the call has replaces the template's whole (a call's retry, paginate or refusal is its own,
 * not a mix); body and bodyXml stand for one another, so a call's bodyXml takes no body from its template.
 */

const MERGED_BY_NAME: ReadonlySet<string> = new Set(['headers', 'query']);
const ALTERNATIVES: readonly (readonly string[])[] = [['body', 'bodyXml']];

type Json = Record<string, unknown>;

function isBlock(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Taken {
  /** Where the setting is read in the expanded document (in the call). */
  readonly from: readonly PathSegment[];
  /** Where it is written (in the template). */
  readonly to: readonly PathSegment[];
  readonly fromText: string;
  readonly toText: string;
  readonly call: string;
  readonly template: string;
}

export interface Expansion {
  /** The document with the templates written into the calls, positions answered where the settings are written. */
  readonly source: YamlSource;
  /** Unknown template names (errors), `use` where it does not apply (errors), templates no call uses (warnings). */
  readonly issues: readonly MappingIssue[];
  /** Problems found in what calls took from templates: at the template, naming it and every call using it. */
  attribute(issues: readonly MappingIssue[]): MappingIssue[];
}

/** Every call a document holds, with its path, and whether it goes to the ERP (where templates apply). */
function callsOf(value: Json): { path: PathSegment[]; call: Json; toErp: boolean }[] {
  const found: { path: PathSegment[]; call: Json; toErp: boolean }[] = [];
  const listed = (owner: unknown, path: PathSegment[], toErp: boolean) => {
    const calls = isBlock(owner) ? owner.calls : undefined;
    if (Array.isArray(calls)) calls.forEach((call, index) => isBlock(call) && found.push({ path: [...path, 'calls', index], call, toErp }));
  };
  const system = isBlock(value.system) ? value.system : {};
  if (isBlock(system.session) && isBlock(system.session.login)) found.push({ path: ['system', 'session', 'login'], call: system.session.login, toErp: true });
  for (const [name, operation] of Object.entries(isBlock(value.operations) ? value.operations : {})) listed(operation, ['operations', name], true);
  for (const [name, push] of Object.entries(isBlock(value.push) ? value.push : {})) listed(push, ['push', name], false);
  return found;
}

class Expander {
  readonly issues: MappingIssue[] = [];
  readonly taken: Taken[] = [];
  /** Calls whose `use` could not be followed: their missing method or path is that problem, said once. */
  readonly unresolved = new Set<string>();
  /** Calls whose `use` was followed, by path text, with the template's path text. */
  readonly using = new Map<string, string>();
  readonly used = new Set<string>();

  constructor(private readonly source: YamlSource, private readonly templates: Json) {}

  /** At the value of `path`; a warning about a whole template at its name. */
  issue(path: readonly PathSegment[], code: MappingIssue['code'], message: string, severity: MappingIssue['severity'] = 'error'): void {
    const pos = severity === 'warning' ? this.source.keyAt(path) : this.source.at(path);
    this.issues.push({ file: this.source.file, line: pos.line, col: pos.col, path: describePath(path), severity, code, message });
  }

  /** The call with its template's settings written in, or the call as it is when it names none it can take. */
  expand(path: readonly PathSegment[], call: Json, toErp: boolean): Json {
    const name: unknown = call.use;
    if (name === undefined) return call;
    const here = describePath(path);
    if (!toErp) {
      this.issue([...path, 'use'], 'USE_NOT_HERE', `${here}.use: a push's calls go to the platform, and the templates of system.calls are calls to the ERP; write this call's settings out`);
      return this.unresolvedCall(here, call);
    }
    // A use that is not text is the structure check's to report, in its words.
    if (typeof name !== 'string') return call;
    const template = Object.hasOwn(this.templates, name) ? this.templates[name] : undefined;
    if (!isBlock(template)) {
      const known = Object.keys(this.templates);
      const hint = closest(name, known);
      this.issue([...path, 'use'], 'USE_UNKNOWN', `${here}.use: there is no call template "${name}" under system.calls${hint ? `; did you mean "${hint}"?` : ''} (${known.length > 0 ? `templates: ${known.join(', ')}` : 'the mapping has none'})`);
      return this.unresolvedCall(here, call);
    }
    this.used.add(name);
    this.using.set(here, `system.calls.${name}`);
    // Object.fromEntries defines each key as data, whatever its name (a key `__proto__` stays a key).
    const taken = Object.entries(template).flatMap(([key, value]) => this.take(call, key, value, path, name));
    return Object.fromEntries([...Object.entries(call).filter(([key]) => key !== 'use'), ...taken]);
  }

  /**
   * The call without its use: then the structure check finds it incomplete when it is (so the rest of the
   * file is still compiled without it), and that finding is left unsaid, as the use said it already.
   */
  private unresolvedCall(here: string, call: Json): Json {
    this.unresolved.add(here);
    const { use: _use, ...rest } = call;
    return rest;
  }

  /** What the call takes of one setting of its template: the setting, its entries merged with the call's, or nothing. */
  private take(call: Json, key: string, value: unknown, path: readonly PathSegment[], name: string): [string, unknown][] {
    const to: PathSegment[] = ['system', 'calls', name, key];
    const has = (block: Json, entry: string) => Object.hasOwn(block, entry) && block[entry] !== undefined;
    if (!has(call, key)) {
      if (ALTERNATIVES.some((group) => group.includes(key) && group.some((other) => has(call, other)))) return [];
      this.note([...path, key], to, path, name);
      return [[key, structuredClone(value)]];
    }
    const own = call[key];
    if (!MERGED_BY_NAME.has(key) || !isBlock(own) || !isBlock(value)) return [];
    for (const entry of Object.keys(value)) if (!has(own, entry)) this.note([...path, key, entry], [...to, entry], path, name);
    return [[key, Object.fromEntries([...Object.entries(structuredClone(value)), ...Object.entries(own)])]];
  }

  private note(from: PathSegment[], to: PathSegment[], call: readonly PathSegment[], template: string): void {
    this.taken.push({ from, to, fromText: describePath(from), toText: describePath(to), call: describePath(call), template: `system.calls.${template}` });
  }
}

/** The source with positions of what calls took answered at the template. */
function redirected(source: YamlSource, value: unknown, taken: readonly Taken[]): YamlSource {
  if (taken.length === 0) return { ...source, value };
  const table = new Map(taken.map((entry) => [JSON.stringify(entry.from), entry.to]));
  const where = (path: readonly PathSegment[]): readonly PathSegment[] => {
    for (let depth = path.length; depth > 0; depth -= 1) {
      const to = table.get(JSON.stringify(path.slice(0, depth)));
      if (to) return [...to, ...path.slice(depth)];
    }
    return path;
  };
  return {
    file: source.file,
    value,
    at: (path) => source.at(where(path)),
    keyAt: (path) => source.keyAt(where(path)),
    insideString: (path, offset) => source.insideString(where(path), offset),
    envAt: (path) => source.envAt(where(path)),
  };
}

/** Whether `text` is `prefix` or a path inside it. */
function within(text: string, prefix: string): boolean {
  return text === prefix || (text.startsWith(prefix) && (text[prefix.length] === '.' || text[prefix.length] === '['));
}

export function expandCallTemplates(source: YamlSource): Expansion {
  const document = source.value;
  if (!isBlock(document)) return { source, issues: [], attribute: (issues) => [...issues] };
  const system = isBlock(document.system) ? document.system : {};
  const calls = callsOf(document);
  // Most files have no templates: nothing to copy or redirect.
  if (system.calls === undefined && calls.every(({ call }) => call.use === undefined)) return { source, issues: [], attribute: (issues) => [...issues] };
  const expander = new Expander(source, isBlock(system.calls) ? system.calls : {});
  const value: Json = structuredClone(document);
  for (const { path, call, toErp } of calls) {
    const expanded = expander.expand(path, call, toErp);
    if (expanded === call) continue;
    let owner: unknown = value;
    for (const segment of path.slice(0, -1)) owner = (owner as Record<PathSegment, unknown>)[segment];
    (owner as Record<PathSegment, unknown>)[path[path.length - 1]] = expanded;
  }
  for (const name of Object.keys(isBlock(system.calls) ? system.calls : {})) {
    if (!expander.used.has(name)) expander.issue(['system', 'calls', name], 'TEMPLATE_UNUSED', `system.calls.${name} is a call template no call uses (use: ${name}); remove it or use it`, 'warning');
  }
  const { taken, unresolved, using } = expander;
  return {
    source: redirected(source, value, taken),
    issues: expander.issues,
    attribute: (issues) => attribute(issues, taken, unresolved, using),
  };
}

/**
 * A problem in what a call took from a template is the template's: its path and message name the
 * template, and one problem found through several calls is said once, listing them. A template's own
 * problem (the structure check reads system.calls too) stands alone. A call whose `use` failed is not
 * said to lack the method or path its template would have given.
 */
function attribute(issues: readonly MappingIssue[], taken: readonly Taken[], unresolved: ReadonlySet<string>, using: ReadonlyMap<string, string>): MappingIssue[] {
  const own = new Set(issues.filter((issue) => issue.path.startsWith('system.calls.')).map((issue) => `${issue.line}:${issue.col}:${issue.code}`));
  const grouped = new Map<string, { issue: MappingIssue; calls: string[]; template: string }>();
  const out: (MappingIssue | string)[] = [];
  for (const issue of issues) {
    if (issue.code === 'MISSING_SETTING' && unresolved.has(issue.path)) continue;
    const entry = taken.find((candidate) => within(issue.path, candidate.fromText));
    if (!entry) {
      const template = issue.code === 'MISSING_SETTING' ? using.get(issue.path) : undefined;
      out.push(template ? { ...issue, message: `${issue.message}, and ${template} (its use) does not give it either` } : issue);
      continue;
    }
    if (own.has(`${issue.line}:${issue.col}:${issue.code}`)) continue;
    const path = entry.toText + issue.path.slice(entry.fromText.length);
    const message = issue.message.split(entry.call).join(entry.template);
    const key = `${issue.line}:${issue.col}:${issue.code}:${message}`;
    const group = grouped.get(key);
    if (group) {
      if (!group.calls.includes(entry.call)) group.calls.push(entry.call);
      continue;
    }
    grouped.set(key, { issue: { ...issue, path, message }, calls: [entry.call], template: entry.template });
    out.push(key);
  }
  return out.map((item) => {
    if (typeof item !== 'string') return item;
    const { issue, calls, template } = grouped.get(item)!;
    return { ...issue, message: `${issue.message} (in ${template}, used by ${calls.join(', ')})` };
  });
}
