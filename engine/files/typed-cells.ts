import type { ColumnType, FieldMap, RowBuild } from '../mapping/model';
import { TimeSlices } from '../time-slices';
import { CellError } from '../mapping/column-types';
import type { CsvTable } from './parse-csv';
import type { FileProblems } from './problems';

/**
 * Checks that the columns the mapping reads exist, then converts the cells of typed columns in place.
 * Every bad cell is reported with its row and column; the cell becomes empty, and `failedCells`
 * remembers it so the contract check does not report the same cell a second time.
 */

export type FailedCells = Set<number>;

/** One number per (record, column), for the FailedCells set. */
export function cellId(record: number, column: number, columnCount: number): number {
  return record * columnCount + column;
}

function columnsOf(fields: FieldMap): string[] {
  return fields.flatMap(([, source]) => (source.kind === 'column' ? [source.column] : []));
}

/** The columns a layout reads by name: they must be in the file. */
export function referencedColumns(types: ReadonlyMap<string, ColumnType>, build: RowBuild): string[] {
  const names = [...types.keys()];
  if (build.kind === 'workOrders') {
    names.push(...columnsOf(build.fields), ...columnsOf(build.requests));
    if (build.key.kind === 'column') names.push(build.key.column);
  } else if (build.kind === 'items') {
    names.push(...columnsOf(build.fields));
  }
  return [...new Set(names)];
}

export function checkColumns(table: CsvTable, needed: readonly string[], problems: FileProblems): void {
  const present = new Set(table.columns);
  const missing = needed.filter((name) => !present.has(name));
  if (missing.length === 0) return;
  const listed = table.columns.filter((name) => name !== '').map((name) => JSON.stringify(name)).join(', ');
  for (const name of missing) {
    problems.add('row 1', `the file has no column ${JSON.stringify(name)}; its columns are: ${listed || '(none)'}`);
  }
}

export async function convertTypedCells(table: CsvTable, types: ReadonlyMap<string, ColumnType>, problems: FileProblems): Promise<FailedCells> {
  const failed: FailedCells = new Set();
  // 200,000 rows × 3 typed columns take a few hundred milliseconds on a busy machine: in slices.
  const slices = new TimeSlices(1024);
  const width = table.columns.length;
  for (const [name, type] of types) {
    const column = table.columns.indexOf(name);
    if (column === -1 || type.name === 'text') continue;
    const { records } = table;
    // Dates and enum codes repeat a lot down a column (every line of an order has its due date), and
    // reading a date is the dearest conversion: convert each distinct text once.
    const seen = type.name.startsWith('date') || type.name.startsWith('enum') ? new Map<string, unknown>() : undefined;
    for (let index = 0; index < records.length; index += 1) {
      if (slices.due()) await slices.turn();
      const cell = records[index][column];
      if (cell === undefined || cell === '') continue;
      try {
        const known = seen?.get(cell as string);
        if (known !== undefined) {
          records[index][column] = known;
          continue;
        }
        const value = type.convert(cell as string);
        if (seen && seen.size < 100_000) seen.set(cell as string, value);
        records[index][column] = value;
      } catch (error) {
        if (!(error instanceof CellError)) throw error;
        problems.add(`row ${table.rowOf(index)}, column ${name}`, error.message);
        records[index][column] = undefined;
        failed.add(cellId(index, column, width));
      }
    }
  }
  return failed;
}
