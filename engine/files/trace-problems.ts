import type { Problem } from '../errors';
import type { FieldSource, RowBuild } from '../mapping/model';
import type { BuiltRecords } from './build-records';
import type { CsvTable } from './parse-csv';
import type { FileProblems } from './problems';
import { cellId, type FailedCells } from './typed-cells';

/**
 * Contract problems of the built objects (AJV paths like /3/requests/2/requestedAmount), said in the
 * operator's terms: the row of the file and the column the field was read from. For JSON files and
 * JSONata transforms no row is known, and the problem keeps the path of the produced object.
 */

function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** `/3/requests/0/itemNumber` → `$[3].requests[0].itemNumber`. */
function jsonPath(path: string): string {
  return segmentsOf(path).reduce((text, segment) => (/^\d+$/.test(segment) ? `${text}[${segment}]` : `${text}.${segment}`), '$');
}

export function reportByPath(contractProblems: readonly Problem[], problems: FileProblems): void {
  for (const problem of contractProblems) problems.add(jsonPath(problem.path), problem.message);
}

export function reportByRow(
  contractProblems: readonly Problem[],
  built: BuiltRecords,
  build: Exclude<RowBuild, { kind: 'output' }>,
  table: CsvTable,
  failed: FailedCells,
  problems: FileProblems,
): void {
  const topFields = new Map<string, FieldSource>(build.fields);
  const lineFields = new Map<string, FieldSource>(build.kind === 'workOrders' ? build.requests : []);
  for (const problem of contractProblems) {
    const segments = segmentsOf(problem.path);
    const rows = built.sources[Number(segments[0])];
    if (!rows) {
      problems.add('file', problem.message);
      continue;
    }
    const isLine = build.kind === 'workOrders' && segments[1] === 'requests' && segments.length >= 3;
    const record = isLine ? rows[Number(segments[2])] : rows[0];
    if (table.ragged.has(record)) continue; // its cell count is already reported
    const field = isLine ? segments[3] : segments[1];
    const source = field === undefined ? undefined : (isLine ? lineFields : topFields).get(field);
    const row = `row ${table.rowOf(record)}`;
    if (source?.kind === 'column') {
      const column = table.columns.indexOf(source.column);
      if (failed.has(cellId(record, column, table.columns.length))) continue; // already reported as a bad cell
      const cell = table.records[record][column];
      const holds = cell === undefined || cell === '' ? ' (the cell is empty)' : ` (the cell holds ${JSON.stringify(cell)})`;
      problems.add(`${row}, column ${source.column}`, `${field} ${problem.message}${holds}`);
    } else if (field !== undefined) {
      problems.add(`${row}, field ${field}`, problem.message);
    } else {
      problems.add(row, problem.message);
    }
  }
}
