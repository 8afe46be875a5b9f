import { describeEvaluationError, type CompiledExpression } from '../expressions/compile';
import type { FieldMap, FieldSource, RowBuild } from '../mapping/model';
import { TimeSlices } from '../time-slices';
import type { CsvTable } from './parse-csv';
import type { FileProblems } from './problems';
import { RowResults } from './row-results';

/**
 * Typed CSV rows → contract objects, for the two declarative layouts: `items` (one object per row) and
 * `workOrders` (rows grouped by an order key in file order, header fields from the group's first row,
 * one request line per row). Bare-column fields are copied; JSONata fields are evaluated after them, so
 * their keys come last in each object, and a row waits only when one must really run: a layout without
 * them, or whose results are reused from equal rows (row-results.ts), never awaits per row. Every loop
 * over the rows lets the event loop turn between time slices (time-slices.ts): 200,000 rows are seconds
 * of work on a busy machine.
 */

export interface BuiltRecords {
  readonly data: Record<string, unknown>[];
  /** The records behind data[i]: its rows for a work order (in line order), the one row for an item. */
  readonly sources: readonly (readonly number[])[];
}

interface PreparedField {
  readonly name: string;
  readonly source: FieldSource;
  /** Column index for a bare-column field, otherwise -1. */
  readonly column: number;
}

function prepare(fields: FieldMap, columns: readonly string[]): PreparedField[] {
  return fields.map(([name, source]) => ({ name, source, column: source.kind === 'column' ? columns.indexOf(source.column) : -1 }));
}

function cellValue(record: readonly unknown[], column: number): unknown {
  const value = record[column];
  return value === '' ? undefined : value;
}

/** Copies bare-column and constant fields. */
function copyFields(target: Record<string, unknown>, fields: readonly PreparedField[], record: readonly unknown[]): void {
  for (const field of fields) {
    if (field.column >= 0) {
      const value = cellValue(record, field.column);
      if (value !== undefined) target[field.name] = value;
    } else if (field.source.kind === 'constant') {
      target[field.name] = field.source.value;
    }
  }
}

/** The row as an object for JSONata: column name → value, empty cells left out. */
export function rowObject(table: CsvTable, index: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const record = table.records[index];
  table.columns.forEach((name, column) => {
    const value = cellValue(record, column);
    if (name !== '' && value !== undefined) row[name] = value;
  });
  return row;
}

/**
 * The expression's value for one row: reused from an equal row without waiting when it can be (most
 * rows of a file), otherwise evaluated. A failure is the returned promise's.
 */
function evaluateRow(expression: CompiledExpression, table: CsvTable, index: number, results: RowResults | undefined): unknown {
  const record = table.records[index];
  const known = results?.get(record);
  if (known) return known.value;
  return expression.evaluate(rowObject(table, index)).then((value) => {
    results?.set(record, value);
    return value;
  });
}

interface FieldExpression {
  readonly name: string;
  readonly expression: CompiledExpression;
  /** Results kept for rows equal on what the expression reads; none for a work order's fields. */
  readonly results?: RowResults;
}

/** The JSONata fields of a layout and what they need to run over one file's rows. */
class FieldExpressions {
  private readonly fields: readonly FieldExpression[];

  /** `withRows`: a work order's fields, which also see all rows of the order as $rows, so are never reused. */
  constructor(fields: readonly PreparedField[], private readonly table: CsvTable, private readonly problems: FileProblems, withRows: boolean) {
    this.fields = fields.flatMap(({ name, source }) => {
      if (source.kind !== 'expression') return [];
      return [{ name, expression: source.expression, results: withRows ? undefined : RowResults.of(source.expression, table) }];
    });
  }

  /**
   * Evaluates the fields for the target of row `record` (and `group`, the order's rows, for a work
   * order) in field order and assigns what each gives; a failure is reported with the row and field.
   * Nothing to wait for when every value is reused from an equal row.
   */
  assign(target: Record<string, unknown>, record: number, group?: readonly number[], from = 0): Promise<void> | undefined {
    for (let index = from; index < this.fields.length; index += 1) {
      const { name, expression, results } = this.fields[index];
      const value = group
        ? expression.evaluate(rowObject(this.table, record), { rows: group.map((row) => rowObject(this.table, row)) })
        : evaluateRow(expression, this.table, record, results);
      if (value instanceof Promise) {
        return value.then(
          (given: unknown) => {
            if (given !== undefined) target[name] = given;
            return this.assign(target, record, group, index + 1);
          },
          (error: unknown) => {
            this.problems.add(`row ${this.table.rowOf(record)}, field ${name}`, describeEvaluationError(error));
            return this.assign(target, record, group, index + 1);
          },
        );
      }
      if (value !== undefined) target[name] = value;
    }
    return undefined;
  }
}

async function groupKeys(table: CsvTable, key: FieldSource, problems: FileProblems): Promise<unknown[]> {
  const { records } = table;
  if (key.kind === 'constant') return records.map(() => key.value);
  if (key.kind === 'column') {
    const column = table.columns.indexOf(key.column);
    return records.map((record) => cellValue(record, column));
  }
  const keys: unknown[] = [];
  const slices = new TimeSlices(64);
  const results = RowResults.of(key.expression, table);
  for (let index = 0; index < records.length; index += 1) {
    if (slices.due()) await slices.turn();
    try {
      const value = evaluateRow(key.expression, table, index, results);
      keys.push(value instanceof Promise ? await value : value);
    } catch (error) {
      problems.add(`row ${table.rowOf(index)}, order key`, describeEvaluationError(error));
      keys.push(undefined);
    }
  }
  return keys;
}

async function buildWorkOrders(table: CsvTable, build: Extract<RowBuild, { kind: 'workOrders' }>, problems: FileProblems): Promise<BuiltRecords> {
  const keys = await groupKeys(table, build.key, problems);
  const groups = new Map<unknown, number[]>();
  // 64: a row may evaluate an expression, which can take a good part of a millisecond.
  const slices = new TimeSlices(64);
  for (let index = 0; index < keys.length; index += 1) {
    if (slices.due()) await slices.turn();
    const key = keys[index];
    if (key === undefined || key === null || key === '') {
      const where = build.key.kind === 'column' ? `row ${table.rowOf(index)}, column ${build.key.column}` : `row ${table.rowOf(index)}`;
      problems.add(where, 'the order key is empty; every row must say which work order it belongs to');
      continue;
    }
    // Keys are compared as text, so 1001 in one row and "1001" in another are the same order.
    const text = typeof key === 'object' ? JSON.stringify(key) : String(key);
    const group = groups.get(text);
    if (group) group.push(index);
    else groups.set(text, [index]);
  }

  const orderFields = prepare(build.fields, table.columns);
  const lineFields = prepare(build.requests, table.columns);
  const orderExpressions = new FieldExpressions(orderFields, table, problems, true);
  const lineExpressions = new FieldExpressions(lineFields, table, problems, false);
  const data: Record<string, unknown>[] = [];
  const sources: number[][] = [];
  for (const rows of groups.values()) {
    if (slices.due()) await slices.turn();
    const order: Record<string, unknown> = {};
    copyFields(order, orderFields, table.records[rows[0]]);
    const requests: Record<string, unknown>[] = new Array(rows.length);
    // Before the JSONata fields: their keys come last in the order's text, after the requests.
    order.requests = requests;
    const orderDone = orderExpressions.assign(order, rows[0], rows);
    if (orderDone) await orderDone;
    for (let line = 0; line < rows.length; line += 1) {
      if (slices.due()) await slices.turn(); // one order may hold every row of the file
      const request: Record<string, unknown> = {};
      copyFields(request, lineFields, table.records[rows[line]]);
      const lineDone = lineExpressions.assign(request, rows[line]);
      if (lineDone) await lineDone;
      requests[line] = request;
    }
    data.push(order);
    sources.push(rows);
  }
  return { data, sources };
}

async function buildItems(table: CsvTable, fields: FieldMap, problems: FileProblems): Promise<BuiltRecords> {
  const prepared = prepare(fields, table.columns);
  const expressions = new FieldExpressions(prepared, table, problems, false);
  const slices = new TimeSlices(64);
  const data = new Array<Record<string, unknown>>(table.records.length);
  for (let index = 0; index < data.length; index += 1) {
    if (slices.due()) await slices.turn();
    const item: Record<string, unknown> = {};
    copyFields(item, prepared, table.records[index]);
    const done = expressions.assign(item, index);
    if (done) await done;
    data[index] = item;
  }
  return { data, sources: data.map((_, index) => [index]) };
}

export function buildRecords(table: CsvTable, build: Exclude<RowBuild, { kind: 'output' }>, problems: FileProblems): Promise<BuiltRecords> {
  return build.kind === 'workOrders' ? buildWorkOrders(table, build, problems) : buildItems(table, build.fields, problems);
}
