import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { MappingIssue, MappingIssueCode } from '../errors';
import { describePath, toIssue } from './check-structure';
import { parseYamlSource, type PathSegment, type YamlSource } from './yaml-source';

/**
 * The CLI's own YAML inputs (mapping tests, recorded answers) are read like mapping files: positions
 * kept, shape checked by a JSON Schema, every problem reported as `file:line:col  message`. No `${VAR}`
 * expansion: they hold literal ERP answers.
 */
export interface ShapeCheck {
  (value: unknown): boolean;
  readonly errors: readonly ErrorObject[];
  /** The schema it checks with (a misplaced setting is looked up in it). */
  readonly schema: Record<string, unknown>;
}

/** A JSON Schema check compiled on first use, so that loading the CLI compiles nothing. */
export function compileShape(schema: Record<string, unknown>): ShapeCheck {
  let compiled: ValidateFunction | undefined;
  const check = (value: unknown): boolean => {
    // verbose: the shared toIssue reads parentSchema to list the allowed settings.
    compiled ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true }).compile(schema);
    return compiled(value);
  };
  return Object.defineProperties(check, { errors: { get: () => compiled?.errors ?? [] }, schema: { value: schema } }) as ShapeCheck;
}

export function displayName(filePath: string): string {
  const relative = path.relative(process.cwd(), filePath);
  return relative && !relative.startsWith('..') ? relative : filePath;
}

export function readCheckedYaml(filePath: string, validate: ShapeCheck): { source?: YamlSource; issues: MappingIssue[] } {
  const file = displayName(filePath);
  let text: string;
  try {
    text = fs.readFileSync(filePath, 'utf8');
  } catch (error) {
    return { issues: [{ file, line: 0, col: 0, path: '', severity: 'error', code: 'FILE_UNREADABLE', message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] };
  }
  return checkYamlText(file, text, validate);
}

/** A text as readCheckedYaml reads a file (the studio's editor checks the text as it is typed). */
export function checkYamlText(file: string, text: string, validate: ShapeCheck): { source?: YamlSource; issues: MappingIssue[] } {
  const parsed = parseYamlSource(file, text, null);
  if (!parsed.source) return { issues: parsed.issues };
  if (validate(parsed.source.value)) return { source: parsed.source, issues: [] };
  const seen = new Set<string>();
  const issues: MappingIssue[] = [];
  for (const error of validate.errors) {
    const found = toIssue(error, parsed.source, validate.schema);
    const key = found && `${found.line}:${found.col}:${found.message}`;
    if (found && key && !seen.has(key)) {
      seen.add(key);
      issues.push(found);
    }
  }
  return { issues: issues.sort((a, b) => a.line - b.line || a.col - b.col) };
}

export function issueAt(source: YamlSource, at: readonly PathSegment[], code: MappingIssueCode, message: string, key = false): MappingIssue {
  const pos = key ? source.keyAt(at) : source.at(at);
  return { file: source.file, line: pos.line, col: pos.col, path: describePath(at), severity: 'error', code, message };
}
