import jsonata from 'jsonata';
import { LRUCache } from 'lru-cache';
import type { RouteSpec } from '../contract/routes';
import type { MappingIssueCode } from '../errors';
import { columnConverter } from './column-types';
import type { FieldSourceText, FileDocument } from './format/file';
import type { ColumnType, CsvLayout, FieldMap, FieldSource, FileOperation, JsonLayout, LocatedExpression, Origin, RowBuild } from './model';
import type { PathSegment, YamlSource } from './yaml-source';

/**
 * The `file:` block → a FileOperation. Checks what the JSON Schema cannot: the block is only for the two
 * file routes, one way of building records per CSV layout and the right one for the route, column names
 * that exist when the mapping names them, and which field sources are bare columns (read directly) and
 * which are JSONata expressions (compiled once, here).
 */

export interface CompileContext {
  readonly source: YamlSource;
  report(code: MappingIssueCode, path: readonly PathSegment[], message: string, pos?: { line: number; col: number }): void;
  expression(text: string, path: readonly PathSegment[]): LocatedExpression | undefined;
  origin(path: readonly PathSegment[]): Origin;
}

type RawSource = FieldSourceText;
type RawFields = Record<string, RawSource>;
type RawCsv = NonNullable<FileDocument['csv']>;

export const FILE_ROUTES: Readonly<Record<string, 'workOrders' | 'items'>> = { ParseWorkOrderFile: 'workOrders', ParseItemFile: 'items' };

/**
 * bareColumn's answers by text: each field of a file route is parsed to tell, and mappings of one
 * template repeat the same fields. Bounded; an entry is a short text and a column name.
 */
const BARE_COLUMNS = new LRUCache<string, { readonly column?: string }>({ max: 1024 });

/** A bare name (`orderNo`, `` `Order No` ``) is a column; a literal is a constant; anything else is JSONata. */
function bareColumn(text: string): string | undefined {
  let known = BARE_COLUMNS.get(text);
  if (!known) {
    known = { column: parsedBareColumn(text) };
    BARE_COLUMNS.set(text, known);
  }
  return known.column;
}

function parsedBareColumn(text: string): string | undefined {
  let ast: { type: string; steps?: { type: string; value: unknown }[] };
  try {
    ast = jsonata(text).ast() as typeof ast;
  } catch {
    return undefined;
  }
  const step = ast.type === 'path' && ast.steps?.length === 1 ? ast.steps[0] : undefined;
  if (!step || step.type !== 'name' || Object.keys(step).some((key) => !['type', 'value', 'position'].includes(key))) return undefined;
  return String(step.value);
}

class FileCompiler {
  constructor(private readonly context: CompileContext, private readonly names: readonly string[] | undefined) {}

  source(raw: RawSource, path: readonly PathSegment[]): FieldSource | undefined {
    const origin = this.context.origin(path);
    if (typeof raw !== 'string') return { kind: 'constant', value: raw, origin };
    const column = bareColumn(raw);
    if (column !== undefined) {
      if (this.names && !this.names.includes(column)) {
        this.context.report('UNKNOWN_COLUMN', path, `"${column}" is not one of the column names given in csv.names (${this.names.join(', ')})`);
        return undefined;
      }
      return { kind: 'column', column, origin };
    }
    const expression = this.context.expression(raw, path);
    return expression && { kind: 'expression', expression, origin };
  }

  fields(raw: RawFields, path: readonly PathSegment[]): FieldMap | undefined {
    const entries = Object.entries(raw).map(([name, value]) => {
      const compiled = this.source(value, [...path, name]);
      return compiled ? ([name, compiled] as const) : undefined;
    });
    return entries.every(Boolean) ? (entries as (readonly [string, FieldSource])[]) : undefined;
  }

  build(raw: RawCsv, path: readonly PathSegment[], route: RouteSpec): RowBuild | undefined {
    const declared = (['workOrders', 'items', 'output'] as const).filter((key) => raw[key] !== undefined);
    const expected = FILE_ROUTES[route.operationId];
    if (declared.length !== 1) {
      this.context.report('FILE_LAYOUT', path, declared.length === 0
        ? `csv must say how rows become ${expected === 'workOrders' ? 'work orders' : 'items'}: add "${expected}" (or "output" with a JSONata expression)`
        : `csv has ${declared.join(' and ')}; use exactly one of them`);
      return undefined;
    }
    const [kind] = declared;
    if (kind !== 'output' && kind !== expected) {
      this.context.report('FILE_LAYOUT', [...path, kind], `"${kind}" builds ${kind === 'workOrders' ? 'work orders' : 'items'}, but ${route.operationId} answers ${expected === 'workOrders' ? 'work orders' : 'items'}; use "${expected}"`, this.context.source.keyAt([...path, kind]));
      return undefined;
    }
    if (raw.output !== undefined) {
      const expression = this.context.expression(raw.output, [...path, 'output']);
      return expression && { kind: 'output', expression };
    }
    if (raw.items) {
      const fields = this.fields(raw.items.fields, [...path, 'items', 'fields']);
      return fields && { kind: 'items', fields };
    }
    const orders = raw.workOrders as NonNullable<RawCsv['workOrders']>;
    const fields = this.fields(orders.fields, [...path, 'workOrders', 'fields']);
    const requests = this.fields(orders.requests, [...path, 'workOrders', 'requests']);
    const key = orders.key === undefined ? fields?.find(([name]) => name === 'number')?.[1] : this.source(orders.key, [...path, 'workOrders', 'key']);
    return fields && requests && key && { kind: 'workOrders', key, fields, requests };
  }

  types(raw: Record<string, string> | undefined, path: readonly PathSegment[]): Map<string, ColumnType> | undefined {
    const types = new Map<string, ColumnType>();
    let ok = true;
    for (const [column, name] of Object.entries(raw ?? {})) {
      if (this.names && !this.names.includes(column)) {
        this.context.report('UNKNOWN_COLUMN', [...path, column], `types names column "${column}", which is not in csv.names (${this.names.join(', ')})`, this.context.source.keyAt([...path, column]));
        ok = false;
        continue;
      }
      types.set(column, { name, convert: columnConverter(name) as ColumnType['convert'] }); // the schema admits only known names
    }
    return ok ? types : undefined;
  }
}

function compileCsv(context: CompileContext, raw: RawCsv, path: readonly PathSegment[], route: RouteSpec): CsvLayout | undefined {
  const header = raw.header;
  if (!header && !raw.names) {
    context.report('SETTINGS_DISAGREE', [...path, 'header'], 'header: false means the file has no header row, so csv.names must list the column names');
    return undefined;
  }
  if (header && raw.names) {
    context.report('SETTINGS_DISAGREE', [...path, 'names'], 'csv.names is for files without a header row; add header: false, or remove names to read them from the first row', context.source.keyAt([...path, 'names']));
    return undefined;
  }
  const duplicate = raw.names?.find((name, index) => raw.names?.indexOf(name) !== index);
  if (duplicate) context.report('VALUE_NOT_ALLOWED', [...path, 'names'], `csv.names lists "${duplicate}" twice`);
  const { delimiter, quote } = raw;
  if (delimiter !== 'auto' && delimiter.length !== 1) context.report('VALUE_NOT_ALLOWED', [...path, 'delimiter'], `delimiter "${delimiter}" must be one character (write "\\t" in double quotes for tab) or auto`);
  else if (delimiter === quote) context.report('SETTINGS_DISAGREE', [...path, 'delimiter'], `delimiter and quote are both "${quote}"`);
  const compiler = new FileCompiler(context, raw.names);
  const types = compiler.types(raw.types, [...path, 'types']);
  const build = compiler.build(raw, path, route);
  if (!types || !build || duplicate || (delimiter !== 'auto' && delimiter.length !== 1) || delimiter === quote) return undefined;
  return {
    encoding: raw.encoding,
    delimiter,
    quote,
    escape: raw.escape,
    header,
    names: raw.names,
    comment: raw.comment,
    trim: raw.trim,
    skipEmptyLines: raw.skipEmptyLines,
    allowRaggedRows: raw.allowRaggedRows,
    relaxQuotes: raw.relaxQuotes,
    maxRecordChars: raw.maxRecordChars,
    types,
    build,
  };
}

export function compileFileOperation(context: CompileContext, raw: FileDocument, path: readonly PathSegment[], route: RouteSpec, origin: Origin): FileOperation | undefined {
  if (!raw.csv && !raw.json) {
    context.report('FILE_LAYOUT', [...path, 'file'], 'file must declare the accepted file types: a csv block, a json block, or both');
    return undefined;
  }
  const csv = raw.csv && compileCsv(context, raw.csv, [...path, 'file', 'csv'], route);
  let json: JsonLayout | undefined;
  if (raw.json) {
    const output = context.expression(raw.json.output, [...path, 'file', 'json', 'output']);
    json = output && { encoding: raw.json.encoding, output };
  }
  if ((raw.csv && !csv) || (raw.json && !json)) return undefined;
  return { mode: 'file', route, origin, csv, json, maxFileBytes: raw.maxFileBytes, maxProblems: raw.maxProblems };
}
