import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { formatIssue } from '../errors';
import type { CompileOptions } from '../expressions/compile';
import { checkMappingFile, checkMappingText } from '../mapping/load';
import type { Mapping } from '../mapping/model';
import type { Candidate } from '../shadow/runner';
import type { ThreadSettings } from '../shadow/thread-messages';

/**
 * Where a server's mappings come from: a list of files, or every *.yaml / *.yml file of one directory.
 * `load()` reads them again and decides what to serve: a file that loads replaces its mapping; a file
 * that does not load keeps its last good mapping serving (or, never loaded, serves nothing) and reports
 * every problem as file:line:col; a file gone from the directory takes its routes with it.
 */

export interface LoadAttempt {
  /** ISO time of the attempt. */
  readonly at: string;
  readonly ok: boolean;
  /** Errors as `file:line:col  message`; empty when ok. */
  readonly problems: readonly string[];
}

export interface MappingFileState {
  /** The file as shown in messages (relative to the working directory when inside it). */
  readonly file: string;
  /** The mapping served from this file: the last one that loaded. */
  readonly mapping?: Mapping;
  /** When the served mapping was loaded (ISO time). */
  readonly loadedAt?: string;
  readonly last: LoadAttempt;
}

export interface LoadReport {
  readonly mappings: readonly Mapping[];
  readonly states: readonly MappingFileState[];
  /** Files loaded this time (changed or forced), with their outcome; unchanged files are not listed. */
  readonly attempts: readonly MappingFileState[];
  readonly removed: readonly string[];
}

/** Shadow candidates: new versions of served mappings, from the `shadow/` folder beside the mapping files. */
interface CandidateLoad {
  readonly candidates: readonly Candidate[];
  /** Files that did not load, or name no served mapping: `file  message`. */
  readonly problems: readonly string[];
}

export interface MappingSource {
  /**
   * Compiles the files that changed since they were loaded, with the TLS files they name; `force`
   * (SIGHUP) also tries again the files that did not load. Each file is read and compiled in a turn of
   * the event loop of its own, so that requests to the mappings served meanwhile wait for one file at
   * most, not for all of them (issue 28: 200 files took seconds). Loads run one after another; what
   * they report is taken over when one is complete.
   */
  load(options?: { readonly force?: boolean }): Promise<LoadReport>;
  states(): readonly MappingFileState[];
  /**
   * Reads the shadow candidates (every *.yaml of `shadow/` beside the mapping files) and keeps those
   * whose mapping name is one of `served`; read at start and on each reload.
   */
  loadCandidates(served: readonly string[]): CandidateLoad;
  /** How the files are compiled (the variables, the fast path's options): the shadow's thread compiles candidates alike. */
  readonly compiledWith: ThreadSettings;
  /** Whether the mappings come from a directory (each then served under /<name>). */
  readonly isDirectory: boolean;
  /** The directories to watch for changes, and whether a changed name there is one of ours. */
  readonly watched: readonly { readonly dir: string; readonly concerns: (name: string) => boolean }[];
}

const MAPPING_EXTENSIONS = /\.ya?ml$/i;

/** A mapping's tests may sit beside it in the served folder (`acme.test.yaml`): they are no mapping to serve. */
function isMappingFileName(name: string): boolean {
  return MAPPING_EXTENSIONS.test(name) && !name.startsWith('.') && !/\.test\.ya?ml$/i.test(name);
}

/** The folder of shadow candidates, beside the served mapping files. */
export const SHADOW_DIR = 'shadow';

function shown(filePath: string): string {
  const relative = path.relative(process.cwd(), filePath);
  return relative && !relative.startsWith('..') ? relative : filePath;
}

interface TlsInput { readonly file: string; readonly content?: string }

/** The TLS files a mapping names, with what was read from each when it was compiled (only ever hashed). */
function tlsInputs(mapping: Mapping | undefined): TlsInput[] {
  return [mapping?.system.tls, mapping?.platform?.tls].flatMap((spec) => (spec ? [
    { file: spec.caFile, content: spec.ca }, { file: spec.certFile, content: spec.cert }, { file: spec.keyFile, content: spec.key?.reveal() },
  ] : [])).flatMap(({ file, content }) => (file === undefined ? [] : [{ file, content }]));
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * What a mapping is made from: its file's text and the TLS files it names. A reload compiles a file
 * again only when this changed, so SIGHUP after one customer's change compiles that one, not every file
 * of the server (issue 28: 200 files took seconds of CPU at each SIGHUP).
 */
function digestOf(text: string, tls: readonly TlsInput[]): string {
  const hash = createHash('sha256').update(text);
  for (const { file, content } of tls) hash.update(`\0${file}\0${content ?? '\0unreadable'}`);
  return hash.digest('hex');
}

/** The digest of what is on disk now for the files a mapping was made from (paths relative to the mapping file). */
function digestOnDisk(filePath: string, text: string, mapping: Mapping | undefined): string {
  return digestOf(text, tlsInputs(mapping).map(({ file }) => ({ file, content: readText(path.resolve(path.dirname(filePath), file)) })));
}

/**
 * `paths`: mapping files, or exactly one directory. `env` fills `${VAR}`. Throws (a usage problem for
 * the caller to report) when a directory is mixed with files or does not exist.
 */
export function createMappingSource(paths: readonly string[], env: NodeJS.ProcessEnv, compileOptions: CompileOptions = {}): MappingSource {
  const directories = paths.filter((given) => fs.existsSync(given) && fs.statSync(given).isDirectory());
  if (directories.length > 0 && paths.length > 1) throw new Error('give either one directory or mapping files, not both');
  const directory = directories.length === 1 ? path.resolve(directories[0]) : undefined;
  const files = directory ? undefined : paths.map((given) => path.resolve(given));
  const twice = files?.find((file, index) => files.indexOf(file) !== index);
  if (twice !== undefined) throw new Error(`the mapping file ${shown(twice)} is given twice`);
  let states = new Map<string, MappingFileState & { readonly digest?: string }>();
  let queue: Promise<unknown> = Promise.resolve();

  const listFiles = (): string[] => {
    if (!directory) return files ?? [];
    return fs.readdirSync(directory).filter(isMappingFileName).sort().map((name) => path.join(directory, name));
  };

  /** `text`: the file as read just before (a change in between only makes the next reload compile it again). */
  function loadOne(filePath: string, previous: (MappingFileState & { readonly digest?: string }) | undefined, text: string | undefined, digest: string | undefined) {
    const file = shown(filePath);
    const at = new Date().toISOString();
    const result = checkMappingFile(filePath, { env, displayName: file, compileOptions });
    // The TLS files as the new mapping read them: a renewed certificate is seen at the next reload.
    const made = text === undefined ? undefined : digestOf(text, tlsInputs(result.mapping));
    if (result.mapping) return { file, mapping: result.mapping, loadedAt: at, last: { at, ok: true, problems: [] }, digest: made };
    const problems = result.issues.filter((issue) => issue.severity === 'error').map(formatIssue);
    return { file, mapping: previous?.mapping, loadedAt: previous?.loadedAt, last: { at, ok: false, problems }, digest };
  }

  async function loadAll(options: { readonly force?: boolean }): Promise<LoadReport> {
    const next = new Map(states);
    const present = listFiles();
    const removed = [...next.keys()].filter((filePath) => !present.includes(filePath));
    for (const filePath of removed) next.delete(filePath);
    const attempts: MappingFileState[] = [];
    for (const filePath of present) {
      // Reading and hashing 200 files in one turn was itself a wait of a few hundred milliseconds on a busy machine.
      await nextTurn();
      const previous = next.get(filePath);
      const text = readText(filePath);
      const digest = text === undefined ? undefined : digestOnDisk(filePath, text, previous?.mapping);
      // Unchanged: skipped; forced, a file that did not load is tried again all the same.
      if (previous && digest !== undefined && previous.digest === digest && (!options.force || previous.last.ok)) continue;
      const state = loadOne(filePath, previous, text, digest);
      next.set(filePath, state);
      attempts.push(state);
    }
    // Each mapping is served under /<name>: a file just loaded whose name another file already serves is refused.
    const taken = new Map<string, string>();
    const justLoaded = new Set(attempts.map((state) => state.file));
    const unchangedFirst = [...next].sort(([, a], [, b]) => Number(justLoaded.has(a.file)) - Number(justLoaded.has(b.file)));
    for (const [filePath, state] of unchangedFirst) {
      const name = state.mapping?.name.toLowerCase();
      if (name === undefined) continue;
      const owner = taken.get(name);
      if (owner === undefined) {
        taken.set(name, state.file);
        continue;
      }
      const problem = `${state.file}  the mapping name "${state.mapping?.name}" is already served from ${owner}; each mapping is served under /<name>, so names must differ`;
      const refused = { ...state, mapping: undefined, loadedAt: undefined, last: { at: state.last.at, ok: false, problems: [problem] } };
      next.set(filePath, refused);
      const attempt = attempts.findIndex((entry) => entry.file === state.file);
      if (attempt >= 0) attempts[attempt] = refused;
    }
    states = next;
    const all = [...next.values()];
    return { mappings: all.flatMap((state) => (state.mapping ? [state.mapping] : [])), states: all, attempts, removed: removed.map(shown) };
  }

  return {
    isDirectory: directory !== undefined,
    // A plain copy: the variables cross to the shadow's thread by structured clone.
    compiledWith: { env: { ...env }, compileOptions },
    watched: directory
      // Any change in the directory: a Kubernetes ConfigMap swaps a `..data` symlink, not the *.yaml names.
      ? [{ dir: directory, concerns: () => true }]
      : [...new Set((files ?? []).map((file) => path.dirname(file)))].map((dir) => ({ dir, concerns: (name) => (files ?? []).includes(path.join(dir, name)) })),
    load(options = {}) {
      const next = queue.then(() => loadAll(options));
      queue = next.catch(() => undefined);
      return next;
    },
    states: () => [...states.values()],
    loadCandidates(served) {
      const folders = [...new Set(directory ? [directory] : (files ?? []).map((file) => path.dirname(file)))].map((dir) => path.join(dir, SHADOW_DIR));
      const candidates: Candidate[] = [];
      const problems: string[] = [];
      for (const folder of folders) {
        const names = fs.existsSync(folder) ? fs.readdirSync(folder).filter(isMappingFileName).sort() : [];
        for (const name of names) {
          const file = shown(path.join(folder, name));
          // The text is kept with the candidate: the shadow's thread compiles this very text, not the file as it is by then.
          const text = readText(path.join(folder, name));
          if (text === undefined) {
            problems.push(`${file}  cannot read the candidate's file`);
            continue;
          }
          const result = checkMappingText(text, file, env, folder, 'error', compileOptions);
          if (!result.mapping) problems.push(...result.issues.filter((issue) => issue.severity === 'error').map(formatIssue));
          else if (!served.includes(result.mapping.name)) problems.push(`${file}  the candidate's mapping name "${result.mapping.name}" is not served here; a candidate shadows the served mapping of the same name`);
          else if (candidates.some((candidate) => candidate.mapping.name === result.mapping?.name)) problems.push(`${file}  another candidate shadows "${result.mapping.name}" already; keep one per mapping`);
          else candidates.push({ mapping: result.mapping, text, baseDir: folder });
        }
      }
      return { candidates, problems };
    },
  };
}
