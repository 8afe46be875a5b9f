import type { CompiledExpression } from '../expressions/compile';
import type { CsvTable } from './parse-csv';

/**
 * One row expression's results over a file, reused for rows that are equal on the columns it reads.
 * `unitOfMeasure: $unit(unit)` runs once per distinct unit code instead of once for each of 200,000
 * rows: a third of the engine's time on such a file went to evaluating it again and again, as typed
 * cells' conversions did before they were made once per distinct text (typed-cells.ts).
 *
 * Reuse is exact: the expression says which of the row object's fields it can read and that nothing
 * else changes its result (CompiledExpression.inputFieldsRead); the key is those fields' values as
 * rowObject would give them. Only plain values are kept (an object or list is built anew for each
 * row, as before, so no two rows share one), and failures are never kept: each row reports its own.
 */

/** Distinct keys kept per expression and file: past it, rows are evaluated as before. */
const MAX_KEPT = 10_000;

/** Map keys compare -0 and 0 as equal; the expression may not (1/x). */
const MINUS_ZERO = Symbol('-0');

type Kept = { readonly value: unknown };

export class RowResults {
  private readonly root = new Map<unknown, unknown>();
  private constant: Kept | undefined;
  private kept = 0;

  private constructor(
    /** Per field read, the columns of that name (a name may head more than one column; the last filled one wins). */
    private readonly columns: readonly (readonly number[])[],
  ) {}

  /** For an expression evaluated over `table`'s rows with no bindings; undefined when results cannot be reused. */
  static of(expression: CompiledExpression, table: CsvTable): RowResults | undefined {
    const fields = expression.inputFieldsRead();
    if (fields === undefined) return undefined;
    const columns = fields.map((field) => table.columns.flatMap((name, index) => (name === field && name !== '' ? [index] : [])));
    return new RowResults(columns);
  }

  /** The field's value in the row object of `record` (build-records.ts rowObject), as a map key. */
  private keyPart(record: readonly unknown[], columns: readonly number[]): unknown {
    let value: unknown;
    for (const column of columns) {
      const cell = record[column];
      if (cell !== '' && cell !== undefined) value = cell;
    }
    return Object.is(value, -0) ? MINUS_ZERO : value;
  }

  get(record: readonly unknown[]): Kept | undefined {
    if (this.columns.length === 0) return this.constant;
    let level: unknown = this.root;
    for (const columns of this.columns) {
      level = (level as Map<unknown, unknown>).get(this.keyPart(record, columns));
      if (level === undefined) return undefined;
    }
    return level as Kept;
  }

  set(record: readonly unknown[], value: unknown): void {
    if (this.kept >= MAX_KEPT || (typeof value === 'object' && value !== null) || typeof value === 'function') return;
    this.kept += 1;
    const kept: Kept = { value };
    if (this.columns.length === 0) {
      this.constant = kept; // an expression that reads no field: one result for every row
      return;
    }
    let level = this.root;
    const last = this.columns.length - 1;
    for (let index = 0; index < last; index += 1) {
      const part = this.keyPart(record, this.columns[index]);
      let next = level.get(part) as Map<unknown, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(part, next);
      }
      level = next;
    }
    level.set(this.keyPart(record, this.columns[last]), kept);
  }
}
