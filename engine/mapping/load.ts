import fs from 'node:fs';
import path from 'node:path';
import { ROUTES } from '../contract/routes';
import { MappingLoadError, type MappingIssue } from '../errors';
import type { CompileOptions } from '../expressions/compile';
import { expandCallTemplates } from './call-templates';
import { checkStructure, describePath, structurallyValidPart } from './check-structure';
import { compileMapping, type AnswerRead } from './compile-mapping';
import { secretEnvValues } from './mask';
import { respell } from './format/respellings';
import type { Mapping } from './model';
import { parseYamlSource, type UnsetVariables } from './yaml-source';

export interface LoadOptions {
  /** Variables for `${VAR}`; defaults to the process environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** How the file is named in messages; defaults to the path relative to the working directory. */
  readonly displayName?: string;
  /**
   * `error` (the default): an unset `${VAR}` stops the load, as serving and calling the ERP need it.
   * `warning`: each unset variable is a warning and its `${...}` text stands in; for checks that send nothing.
   */
  readonly unsetVariables?: UnsetVariables;
  /** How the expressions run (`serve --no-codegen`); the defaults otherwise. */
  readonly compileOptions?: CompileOptions;
}

export interface CheckResult {
  readonly mapping?: Mapping;
  /** Errors (the mapping is unusable) and warnings (it loads), in file order. */
  readonly issues: readonly MappingIssue[];
  /** What the operations read of their calls' answers (`calls.order.body.customer`), where it stands: validate checks it against recorded answers. */
  readonly answerReads?: readonly AnswerRead[];
}

function byPosition(a: MappingIssue, b: MappingIssue): number {
  return a.line - b.line || a.col - b.col;
}

/** Parses mapping text through every stage and returns all issues; never throws for a bad mapping. */
export function checkMappingText(text: string, file: string, env: NodeJS.ProcessEnv = process.env, baseDir = process.cwd(), unsetVariables: UnsetVariables = 'error', compileOptions: CompileOptions = {}): CheckResult {
  const parsed = parseYamlSource(file, text, env, unsetVariables);
  if (!parsed.source) return { issues: parsed.issues.sort(byPosition) };
  // Old spellings are read as the current ones; every later stage sees the current format only.
  const { value, found } = respell(parsed.source.value);
  // Unset variables (warnings here) and old spellings are what reading the file found.
  const early = found.map(({ path: at, respelling, message, clash }): MappingIssue => {
    const pos = respelling.kind === 'key' ? parsed.source!.keyAt(at) : parsed.source!.at(at);
    return { file, line: pos.line, col: pos.col, path: describePath(at), severity: clash ? 'error' : 'warning', code: clash ? 'OLD_AND_NEW_SPELLING' : 'OLD_SPELLING', message };
  }).concat(parsed.issues).sort(byPosition);
  if (early.some((issue) => issue.severity === 'error')) return { issues: early.sort(byPosition) };
  // Call templates are written into the calls first: every later stage sees plain calls (call-templates.ts).
  const templates = expandCallTemplates({ ...parsed.source, value });
  const { source } = templates;
  const expanded = source.value;
  const structural = templates.attribute(checkStructure(source));
  const loaded = [...early, ...templates.issues];
  if (structural.length > 0 || templates.issues.some((issue) => issue.severity === 'error')) {
    // Every problem of the file in one run: the parts the structure check did not refuse are compiled too.
    const rest = structurallyValidPart(expanded);
    const more = rest === undefined ? [] : templates.attribute(compileMapping({ ...source, value: rest }, baseDir, [], { env, unset: unsetVariables }, compileOptions).issues);
    const seen = new Set(structural.map((issue) => `${issue.line}:${issue.col}:${issue.code}`));
    return { issues: [...loaded, ...structural, ...more.filter((issue) => !seen.has(`${issue.line}:${issue.col}:${issue.code}`))].sort(byPosition) };
  }
  const compiled = compileMapping(source, baseDir, secretEnvValues(text, env), { env, unset: unsetVariables }, compileOptions);
  if (!compiled.mapping) return { issues: [...loaded, ...templates.attribute(compiled.issues)].sort(byPosition) };
  const warnings: MappingIssue[] = ROUTES.filter((route) => !compiled.mapping!.operations.has(route.operationId)).map((route) => ({
    file, line: 0, col: 0, path: `operations.${route.operationId}`, severity: 'warning', code: 'UNMAPPED_ROUTE',
    message: `${route.method} ${route.path} (${route.operationId}) is not mapped and answers ${route.unmappedDefault ? `${route.successResult} with empty data (contract rule 5)` : 'AdapterNotDefined'}`,
  }));
  return { mapping: compiled.mapping, issues: [...[...loaded, ...templates.attribute(compiled.warnings)].sort(byPosition), ...warnings], answerReads: compiled.answerReads };
}

export function checkMappingFile(filePath: string, options: LoadOptions = {}): CheckResult {
  const file = options.displayName ?? path.relative(process.cwd(), filePath) ?? filePath;
  let text: string;
  try {
    text = fs.readFileSync(filePath, 'utf8');
  } catch (error) {
    return { issues: [{ file, line: 0, col: 0, path: '', severity: 'error', code: 'FILE_UNREADABLE', message: `cannot read the mapping file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] };
  }
  return checkMappingText(text, file, options.env, path.dirname(path.resolve(filePath)), options.unsetVariables, options.compileOptions);
}

/** Loads a mapping for serving; throws MappingLoadError listing every error with file:line:col. */
export function loadMapping(filePath: string, options: LoadOptions = {}): { mapping: Mapping; warnings: readonly MappingIssue[] } {
  const result = checkMappingFile(filePath, options);
  if (!result.mapping) throw new MappingLoadError(result.issues);
  return { mapping: result.mapping, warnings: result.issues };
}
