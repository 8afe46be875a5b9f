import fs from 'node:fs';
import path from 'node:path';
import { createEngine, type Engine } from '../core/engine';
import type { MappingIssue } from '../errors';
import { createJournal } from '../journal/journal';
import type { Logger } from '../log';
import { interpretedExpressions } from '../mapping/interpreted';
import { checkMappingText } from '../mapping/load';
import type { Mapping } from '../mapping/model';
import { displayName } from '../mapping/yaml-file';
import type { OutboxStore } from '../outbox/store';
import { isRefusal, newMappingRefusal, writeNewMapping, type NewMappingRefusal } from '../testing/new-mapping';
import { maskerOf } from '../testing/run-case';
import { writeAtomically } from '../testing/write-atomically';
import { testTextIssues } from '../testing/test-runner';
import type { CallBodies } from './answer-fields';
import type { StudioSources } from './sources';
import { issueViewOf, mappingView, testFileOf } from './views';

/**
 * The mapping files the studio edits and the one Engine that serves them while it runs: the same
 * loader as `validate` and `serve`, the same `createEngine` with a journal (the Requests page) and an
 * outbox store (the Outbox page, with the background deliverer). A file that stops loading keeps its
 * last good mapping serving, as a reload of `serve` does, and its problems are shown.
 */
export interface StudioFile {
  /** How the page and the messages name it: the path relative to the working directory. */
  readonly name: string;
  readonly path: string;
  /** Problems of the file as it is on disk now (errors and warnings, `validate`'s text). */
  issues: readonly MappingIssue[];
  /** The mapping serving now: the file's, or its last good one when the file does not load. */
  serving?: Mapping;
  /** Whether the file on disk loads (false: `serving` is the last good mapping, if any). */
  loads: boolean;
}

export interface Workspace extends StudioSources {
  readonly files: readonly StudioFile[];
  readonly env: NodeJS.ProcessEnv;
  /** The engine serving the good mappings; undefined while no file loads. */
  engine(): Engine | undefined;
  file(name: string): StudioFile | undefined;
  /** Checks text as `validate` does, without writing it. */
  check(file: StudioFile, text: string): readonly MappingIssue[];
  /** Writes the text atomically, then serves it when it loads (else keeps the last good mapping). */
  save(file: StudioFile, text: string): void;
  /** Checks a text of the file's test file as `test` does before it runs (its schema, then the cases against the serving mapping). */
  checkTests(file: StudioFile, text: string): readonly MappingIssue[];
  /** Writes the test file's text atomically (the writer `record` appends with). */
  saveTests(file: StudioFile, text: string): readonly MappingIssue[];
  /** The ERP's answer bodies of the file's last "Try a route" of each call (answers from the ERP or recorded). */
  tried(file: StudioFile): CallBodies;
  /** Keeps a run's answer bodies as the file's last tried ones, per call. */
  keepTried(file: StudioFile, bodies: CallBodies): void;
  /** Writes a new mapping and its test file as `init` does, then serves it beside the others (when it loads). */
  create(name: string): StudioFile | NewMappingRefusal;
  close(): Promise<void>;
}

export interface WorkspaceOptions {
  readonly paths: readonly string[];
  /** Where a mapping started from the page is written (the first folder named, else the first file's). */
  readonly mappingsDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: Logger;
  /** Where events wait for delivery (the studio's own state directory, or serve's). */
  readonly outbox?: OutboxStore;
}

/** validate's problems, its info lines on expressions that are not compiled included. */
function checkText(file: Pick<StudioFile, 'name' | 'path'>, text: string, env: NodeJS.ProcessEnv): { mapping?: Mapping; issues: readonly MappingIssue[] } {
  const result = checkMappingText(text, file.name, env, path.dirname(path.resolve(file.path)), 'error');
  return result.mapping ? { ...result, issues: [...result.issues, ...interpretedExpressions(result.mapping)] } : result;
}

export function openWorkspace(options: WorkspaceOptions): Workspace {
  const opened = (filePath: string): StudioFile => {
    const file = { name: displayName(filePath), path: filePath };
    const result = checkText(file, fs.readFileSync(filePath, 'utf8'), options.env);
    return { ...file, issues: result.issues, serving: result.mapping, loads: result.mapping !== undefined };
  };
  const files: StudioFile[] = options.paths.map(opened);
  const journal = createJournal({ size: 1000, log: options.log });
  const lastTried = new Map<string, CallBodies>();
  let engine: Engine | undefined;
  const serving = () => files.flatMap((file) => (file.serving ? [file.serving] : []));
  const refresh = () => {
    const mappings = serving();
    if (mappings.length === 0) return;
    if (engine) engine.replaceMappings(mappings);
    else {
      // Each mapping under /<name>, one file or more: a mapping started from the page joins the others.
      engine = createEngine({ mappings, log: options.log, outbox: options.outbox, journal, checkInboundAuth: false, prefixed: true });
      engine.deliverer?.start();
    }
  };
  refresh();
  const viewOf = (file: StudioFile) => mappingView({ ...file, issues: file.issues.map(issueViewOf) });
  return {
    files,
    env: options.env,
    outbox: options.outbox,
    mappings: () => files.map(viewOf),
    requests: async (filter) => (await engine?.journal.list(filter)) ?? [],
    request: async (id) => engine?.describeRequest(id),
    maskEvent: (name, event) => {
      const mapping = files.find((file) => file.serving?.name === name)?.serving;
      return mapping ? (maskerOf(mapping).deep(event) as typeof event) : event;
    },
    wake: () => engine?.deliverer?.wake(),
    engine: () => engine,
    file: (name) => files.find((file) => file.name === name),
    check: (file, text) => checkText(file, text, options.env).issues,
    save(file, text) {
      writeAtomically(file.path, text);
      const result = checkText(file, text, options.env);
      file.issues = result.issues;
      file.loads = result.mapping !== undefined;
      if (result.mapping) {
        file.serving = result.mapping;
        refresh();
      }
    },
    checkTests: (file, text) => testTextIssues(testFileOf(file), text, file.serving),
    saveTests(file, text) {
      writeAtomically(testFileOf({ name: file.path }), text);
      return testTextIssues(testFileOf(file), text, file.serving);
    },
    tried: (file) => lastTried.get(file.name) ?? {},
    keepTried: (file, bodies) => lastTried.set(file.name, { ...lastTried.get(file.name), ...bodies }),
    create(name) {
      const refused = newMappingRefusal(options.mappingsDir, name);
      if (refused) return refused;
      // Each mapping is served under /<name>: a second one of a name would not be reached.
      const taken = files.find((file) => file.serving?.name === name);
      if (taken) return { problem: `a mapping named ${name} is served already, from ${taken.name}: choose another name`, reason: 'exists' };
      const written = writeNewMapping(options.mappingsDir, name);
      if (isRefusal(written)) return written;
      const file = opened(written.mappingFile);
      files.push(file);
      if (file.serving) refresh();
      return file;
    },
    async close() {
      if (engine) await engine.close();
      else await journal.close();
      await options.outbox?.close();
    },
  };
}
