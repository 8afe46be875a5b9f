import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import { ROUTES } from '../contract/routes';
import type { MappingIssue } from '../errors';
import { mappingSchemaFile } from './format/schema-file';
import { misplacedSetting } from './misplaced-setting';
import { AHEAD_OF_TIME_FILE, structureAjv } from './structure-ajv';
import type { PathSegment, YamlSource } from './yaml-source';

/**
 * Checks the shape of a mapping file against the format's JSON Schema and says what is wrong in words
 * an integrator understands, at the line and column of the offending key or value.
 */

type Validator = ReturnType<Ajv['compile']>;
let validator: Validator | undefined;

/**
 * The validator, made on first use; like the format it checks, a constant of the program. A build
 * writes it as code beside this file (`npm run build`, write-structure-validator.ts): compiling it
 * took 180 ms of every start of serve and of each worker, loading the code takes 10. From the sources
 * (the tests) there is no build, and it is compiled here with the same options, from the format's JSON
 * Schema file (the same schema: json-schema.test.ts holds the file to the declaration).
 */
function loadValidator(): Validator {
  const ahead = path.join(__dirname, AHEAD_OF_TIME_FILE);
  if (fs.existsSync(ahead)) return createRequire(__filename)(ahead) as Validator;
  return structureAjv().compile(mappingSchemaFile());
}

function validateShape(value: unknown): ErrorObject[] {
  validator ??= loadValidator();
  return validator(value) ? [] : [...(validator.errors ?? [])];
}

interface SchemaNode {
  readonly properties?: Record<string, { const?: unknown; enum?: unknown[] }>;
  readonly required?: readonly string[];
  readonly oneOf?: SchemaNode[];
  readonly discriminator?: { propertyName: string };
}

/**
 * The variant an object schema stands for (`type basic`), when it is one member of a oneOf: its key is a
 * required constant. An optional constant (an operation's `acknowledge: true`) does not make a variant.
 */
function variantOf(schema: SchemaNode | undefined): string | undefined {
  for (const [key, property] of Object.entries(schema?.properties ?? {})) {
    if (property.const !== undefined && key !== 'version' && (schema?.required ?? []).includes(key)) return `${key} ${String(property.const)}`;
  }
  return undefined;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a block of settings (key: value)',
  array: 'a list (lines starting with "- ")',
};

function segments(instancePath: string): PathSegment[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** `operations.GetItem.calls[0]`; '' for the document itself. */
export function describePath(path: readonly PathSegment[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

/** Closest known name by edit distance, for "did you mean" hints. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const distance = (a: string, b: string) => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i += 1) {
      let previous = row[0];
      row[0] = i;
      for (let j = 1; j <= b.length; j += 1) {
        const current = row[j];
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
        previous = current;
      }
    }
    return row[b.length];
  };
  let best: { name: string; score: number } | undefined;
  for (const candidate of candidates) {
    const score = distance(name, candidate);
    if (!best || score < best.score) best = { name: candidate, score };
  }
  return best && best.score <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** One AJV error as a plain-language issue at the offending line:col; also used for the CLI's test files. */
export function toIssue(error: ErrorObject, source: YamlSource, format: Readonly<Record<string, unknown>> = mappingSchemaFile()): MappingIssue | undefined {
  const path = segments(error.instancePath);
  const here = describePath(path) || 'the file';
  const at = (pos: { line: number; col: number }, code: MappingIssue['code'], message: string): MappingIssue => ({
    file: source.file, line: pos.line, col: pos.col, path: describePath(path), severity: 'error', code, message,
  });
  const parent = error.parentSchema as SchemaNode | undefined;
  const variant = variantOf(parent);
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      const allowed = Object.keys(parent?.properties ?? {});
      if (path.length === 1 && path[0] === 'operations') {
        const hint = closest(extra, ROUTES.map((r) => r.operationId));
        return at(source.keyAt([...path, extra]), 'UNKNOWN_OPERATION',
          `"${extra}" is not a contract operation${hint ? `; did you mean ${hint}?` : ''} (run the routes command for the list)`);
      }
      if (variant) {
        const takes = allowed.filter((name) => !variant.startsWith(`${name} `));
        const meant = closest(extra, takes);
        if (meant) return at(source.keyAt([...path, extra]), 'UNKNOWN_SETTING', `unknown setting "${extra}" in ${here}; did you mean "${meant}"? (${variant} takes: ${takes.join(', ')})`);
        return at(source.keyAt([...path, extra]), 'SETTING_NOT_FOR_VARIANT',
          `${here}.${extra} does not apply to ${variant}${takes.length > 0 ? ` (it takes: ${takes.join(', ')})` : ''}`);
      }
      const hint = closest(extra, allowed);
      const key = source.keyAt([...path, extra]);
      const belongs = hint ? undefined : misplacedSetting(format, blockAt(source.value, path) ?? {}, path, extra);
      if (belongs) return at(key, 'UNKNOWN_SETTING', `"${extra}" is not a setting of ${here} but of ${describePath(belongs) || 'the file'}: check the indentation of line ${key.line}`);
      return at(key, 'UNKNOWN_SETTING',
        `unknown setting "${extra}" in ${here}${hint ? `; did you mean "${hint}"?` : ''} (allowed: ${allowed.join(', ')})`);
    }
    case 'if':
      // Says only that a branch failed; that branch's own errors (a missing setting) are the ones to show.
      return undefined;
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return at(source.at(path), 'MISSING_SETTING', `${here}${variant ? ` with ${variant}` : ''} is missing the required setting "${missing}"`);
    }
    case 'type': {
      const expected = String((error.params as { type: string }).type).split(',').map((t) => TYPE_WORDS[t] ?? t).join(' or ');
      return at(source.at(path), 'WRONG_TYPE', `${here} must be ${expected}`);
    }
    case 'enum':
      return at(source.at(path), 'VALUE_NOT_ALLOWED', `${here} must be one of: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`);
    case 'const':
      return at(source.at(path), 'VALUE_NOT_ALLOWED', `${here} must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`);
    case 'discriminator': {
      const { tag, tagValue } = error.params as { tag: string; tagValue: unknown };
      const tagPath = [...path, tag];
      if (tagValue === undefined) return at(source.at(path), 'MISSING_SETTING', `${here} is missing the required setting "${tag}"`);
      const choices = (parent?.oneOf ?? []).map((member) => member.properties?.[tag]?.const).filter((value) => value !== undefined);
      return at(source.at(tagPath), 'VALUE_NOT_ALLOWED', `${describePath(tagPath)} must be one of: ${choices.join(', ')}`);
    }
    default:
      return at(source.at(path), 'VALUE_NOT_ALLOWED', `${here} ${error.message ?? 'is invalid'}`);
  }
}

/** The value at `path` of the document, if it is a block of settings. */
function blockAt(value: unknown, path: readonly PathSegment[]): Record<string, unknown> | undefined {
  let node = value;
  for (const segment of path) node = node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[segment] : undefined;
  return node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>) : undefined;
}

/** One issue for a misspelt required setting, at the misspelt key, instead of "unknown" plus "missing". */
function misspelt(source: YamlSource, path: readonly PathSegment[], written: string, meant: string, schema: SchemaNode | undefined): MappingIssue {
  const pos = source.keyAt([...path, written]);
  const here = describePath(path) || 'the file';
  const variant = variantOf(schema);
  const allowed = Object.keys(schema?.properties ?? {}).filter((name) => !variant?.startsWith(`${name} `));
  const settings = allowed.length === 0 ? '' : variant ? `; ${variant} takes: ${allowed.join(', ')}` : `; allowed: ${allowed.join(', ')}`;
  return {
    file: source.file, line: pos.line, col: pos.col, path: describePath(path), severity: 'error', code: 'UNKNOWN_SETTING',
    message: `unknown setting "${written}" in ${here}; did you mean "${meant}"? (a required setting${settings})`,
  };
}

/**
 * A misspelt required setting fails twice in the schema: an unknown key, and the required one missing.
 * The integrator made one mistake, so it is reported once: as the misspelling, at the misspelt key. Also
 * when the setting is the one that picks a variant (`styl: cursor` for `style`), which AJV reports only
 * as missing.
 */
function misspellings(errors: readonly ErrorObject[], source: YamlSource): Map<ErrorObject, MappingIssue | undefined> {
  const missing = new Map<string, { error: ErrorObject; name: string }[]>();
  for (const error of errors) {
    if (error.keyword === 'required') {
      const list = missing.get(error.instancePath) ?? [];
      list.push({ error, name: (error.params as { missingProperty: string }).missingProperty });
      missing.set(error.instancePath, list);
    }
  }
  /** The error that now carries the misspelling, and (to undefined) the "missing" error it replaces. */
  const replaced = new Map<ErrorObject, MappingIssue | undefined>();
  for (const error of errors) {
    const path = segments(error.instancePath);
    if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      const open = (missing.get(error.instancePath) ?? []).filter((m) => !replaced.has(m.error));
      const meant = closest(extra, open.map((m) => m.name));
      const match = open.find((m) => m.name === meant);
      if (!match) continue;
      replaced.set(error, misspelt(source, path, extra, match.name, error.parentSchema as SchemaNode | undefined)).set(match.error, undefined);
    } else if (error.keyword === 'discriminator' && (error.params as { tagValue?: unknown }).tagValue === undefined) {
      const tag = (error.params as { tag: string }).tag;
      const written = Object.keys(blockAt(source.value, path) ?? {}).find((key) => closest(key, [tag]) === tag);
      if (!written) continue;
      replaced.set(error, misspelt(source, path, written, tag, undefined));
    }
  }
  return replaced;
}

export function checkStructure(source: YamlSource): MappingIssue[] {
  const errors = validateShape(source.value);
  const seen = new Set<string>();
  const replaced = misspellings(errors, source);
  const issues: MappingIssue[] = [];
  for (const error of errors) {
    const found = replaced.has(error) ? replaced.get(error) : toIssue(error, source);
    if (!found) continue;
    const key = `${found.line}:${found.col}:${found.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(found);
    }
  }
  return issues;
}

/**
 * The document without the parts the structure check refused, so the compiler can still report the
 * problems of everything else in the same run (a misspelt setting must not hide a wrong result name two
 * operations further down): a refused operation or function is left out whole, an unknown setting is
 * dropped. Undefined when a refused part is one the rest stands on (system:, inbound:, limits:), or when
 * the pruned document still does not pass.
 */
export function structurallyValidPart(value: unknown): unknown {
  const errors = validateShape(value);
  if (errors.length === 0) return value;
  const pruned = structuredClone(value) as Record<string, unknown>;
  for (const error of errors) {
    const path = segments(error.instancePath);
    const [block, name] = path;
    if ((block === 'operations' || block === 'functions' || block === 'push') && typeof name === 'string') {
      const owner = pruned[block] as Record<string, unknown> | undefined;
      if (owner) delete owner[name];
      continue;
    }
    const extra = (error.params as { additionalProperty?: unknown }).additionalProperty;
    if (error.keyword !== 'additionalProperties' || typeof extra !== 'string') return undefined;
    let node: unknown = pruned;
    for (const segment of path) node = (node as Record<string | number, unknown> | undefined)?.[segment];
    if (node && typeof node === 'object') delete (node as Record<string, unknown>)[extra];
  }
  return validateShape(pruned).length === 0 ? pruned : undefined;
}
