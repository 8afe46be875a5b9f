import { describeEvaluationError, type CompiledExpression } from '../expressions/compile';
import type { FieldMap, FieldSource, RowBuild } from '../mapping/model';
import { TimeSlices } from '../time-slices';
import type { CsvTable } from './parse-csv';
import type { FileProblems } from './problems';
import { RowResults } from './row-results';

/**
 * Typed CSV rows → contract objects, for the two declarative layouts: `items` (one object per row) and
 * `workOrders` (rows grouped by an order key in file order, header fields from the group's first row,
 * one request line per row). Bare-column fields are copied in one pass; JSONata fields are evaluated
 * afterwards, so a layout without them never awaits per row. Every loop over the rows lets the event
 * loop turn between time slices (time-slices.ts): 200,000 rows are seconds of work on a busy machine.
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

interface PendingExpression {
  readonly target: Record<string, unknown>;
  readonly field: PreparedField;
  /** The row the expression sees as its input. */
  readonly record: number;
  /** For work order fields: all rows of the order, as $rows. */
  readonly group?: readonly number[];
}

function prepare(fields: FieldMap, columns: readonly string[]): PreparedField[] {
  return fields.map(([name, source]) => ({ name, source, column: source.kind === 'column' ? columns.indexOf(source.column) : -1 }));
}

function cellValue(record: readonly unknown[], column: number): unknown {
  const value = record[column];
  return value === '' ? undefined : value;
}

/** Copies bare-column and constant fields; queues JSONata ones. */
function fill(target: Record<string, unknown>, fields: readonly PreparedField[], record: readonly unknown[], pending: PendingExpression[], recordIndex: number, group?: readonly number[]): void {
  for (const field of fields) {
    if (field.column >= 0) {
      const value = cellValue(record, field.column);
      if (value !== undefined) target[field.name] = value;
    } else if (field.source.kind === 'constant') {
      target[field.name] = field.source.value;
    } else if (field.source.kind === 'expression') {
      pending.push({ target, field, record: recordIndex, group });
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

/** Reusable results per expression over this table's rows (row-results.ts), made on first use. */
function resultsPerExpression(table: CsvTable): (expression: CompiledExpression) => RowResults | undefined {
  const made = new Map<CompiledExpression, RowResults | undefined>();
  return (expression) => {
    if (!made.has(expression)) made.set(expression, RowResults.of(expression, table));
    return made.get(expression);
  };
}

/** The expression's value for one row, reused from an equal row when it can be; throws what the expression throws. */
async function evaluateRow(expression: CompiledExpression, table: CsvTable, index: number, results: RowResults | undefined): Promise<unknown> {
  const record = table.records[index];
  const known = results?.get(record);
  if (known) return known.value;
  const value = await expression.evaluate(rowObject(table, index));
  results?.set(record, value);
  return value;
}

async function evaluatePending(pending: readonly PendingExpression[], table: CsvTable, problems: FileProblems): Promise<void> {
  const slices = new TimeSlices(64);
  const resultsOf = resultsPerExpression(table);
  for (const task of pending) {
    if (slices.due()) await slices.turn();
    const { source } = task.field;
    if (source.kind !== 'expression') continue;
    try {
      // A work order field also sees all rows of its order as $rows, so its result is not reused.
      const value = task.group
        ? await source.expression.evaluate(rowObject(table, task.record), { rows: task.group.map((index) => rowObject(table, index)) })
        : await evaluateRow(source.expression, table, task.record, resultsOf(source.expression));
      if (value !== undefined) task.target[task.field.name] = value;
    } catch (error) {
      problems.add(`row ${table.rowOf(task.record)}, field ${task.field.name}`, describeEvaluationError(error));
    }
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
      keys.push(await evaluateRow(key.expression, table, index, results));
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
  const slices = new TimeSlices(1024);
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
  const pending: PendingExpression[] = [];
  const data: Record<string, unknown>[] = [];
  const sources: number[][] = [];
  for (const rows of groups.values()) {
    if (slices.due()) await slices.turn();
    const order: Record<string, unknown> = {};
    fill(order, orderFields, table.records[rows[0]], pending, rows[0], rows);
    const requests: Record<string, unknown>[] = new Array(rows.length);
    for (let line = 0; line < rows.length; line += 1) {
      const request: Record<string, unknown> = {};
      fill(request, lineFields, table.records[rows[line]], pending, rows[line]);
      requests[line] = request;
    }
    order.requests = requests;
    data.push(order);
    sources.push(rows);
  }
  await evaluatePending(pending, table, problems);
  return { data, sources };
}

async function buildItems(table: CsvTable, fields: FieldMap, problems: FileProblems): Promise<BuiltRecords> {
  const prepared = prepare(fields, table.columns);
  const pending: PendingExpression[] = [];
  const slices = new TimeSlices(1024);
  const data = new Array<Record<string, unknown>>(table.records.length);
  for (let index = 0; index < data.length; index += 1) {
    if (slices.due()) await slices.turn();
    const item: Record<string, unknown> = {};
    fill(item, prepared, table.records[index], pending, index);
    data[index] = item;
  }
  await evaluatePending(pending, table, problems);
  return { data, sources: data.map((_, index) => [index]) };
}

export function buildRecords(table: CsvTable, build: Exclude<RowBuild, { kind: 'output' }>, problems: FileProblems): Promise<BuiltRecords> {
  return build.kind === 'workOrders' ? buildWorkOrders(table, build, problems) : buildItems(table, build.fields, problems);
}
