/**
 * Issue 18, item 3: a work-order CSV wrong on every row took time growing with the square of its rows
 * (80,000 bad rows: 54 s, stalling every request), because the contract check listed every problem of
 * every row before the list was cut to maxProblems. The check now stops describing problems at the cap
 * and only counts the rest, in one linear pass. No timing is asserted (figures are in the issue's
 * report); the test's own timeout is the generous bound.
 */
import { describe, expect, it } from 'vitest';
import { findRoute } from '../../engine/contract/routes';
import { createSchemaRegistry } from '../../engine/contract/schema-registry';
import { OperationFailure } from '../../engine/errors';
import { runFileOperation } from '../../engine/files/run-file';
import type { FileOperation } from '../../engine/mapping/model';
import { base64, CSV, exampleMapping } from '../files/fixtures';

const ROWS = 200_000;
const HEADER = 'orderNo;dueDate;customer;shipment;line;article;itemName;qty;unit;lot';

/** `ROWS` order lines whose quantity is not a number, one work order each or all in one order. */
function badCsv(oneOrder: boolean): string {
  const lines = [HEADER];
  for (let index = 0; index < ROWS; index += 1) lines.push(`SO-${oneOrder ? 1 : index};15.12.2026;C;DN-1;${index};A-${index};Item;many;PCE;L-1`);
  return lines.join('\n');
}

/** An order line without an article (a contract problem, not a cell problem). */
function csvWithoutArticles(): string {
  const lines = [HEADER];
  for (let index = 0; index < ROWS; index += 1) lines.push(`SO-${index};15.12.2026;C;DN-1;${index};;Item;1;PCE;L-1`);
  return lines.join('\n');
}

async function failureOf(csv: string): Promise<OperationFailure> {
  const operation = exampleMapping().operations.get('ParseWorkOrderFile') as FileOperation;
  const checkData = createSchemaRegistry().compile(findRoute('ParseWorkOrderFile')!.dataSchema!);
  const started = performance.now();
  const failure = await runFileOperation(operation, { fileContent: base64(csv), fileType: CSV }, checkData, []).then(
    () => undefined,
    (error: unknown) => error,
  );
  console.info(`${ROWS} bad rows: ${Math.round(performance.now() - started)} ms`);
  expect(failure).toBeInstanceOf(OperationFailure);
  return failure as OperationFailure;
}

function unlisted(failure: OperationFailure): number {
  const last = failure.problems[failure.problems.length - 1];
  return Number(/… and (\d+) more problem/.exec(last.message)?.[1]);
}

describe('a CSV with 200,000 bad rows (issue 18, item 3)', () => {
  it('lists maxProblems (100) of the bad quantities, counts the rest, one work order per row', async () => {
    const failure = await failureOf(badCsv(false));
    expect(failure.kind).toBe('FILE_INVALID');
    expect(failure.problems).toHaveLength(101);
    expect(failure.problems[0].message).toMatch(/^row 2, column qty: /);
    expect(unlisted(failure)).toBe(ROWS - 100);
  }, 60_000);

  it('the same when all rows are lines of one work order', async () => {
    const failure = await failureOf(badCsv(true));
    expect(failure.problems).toHaveLength(101);
    expect(unlisted(failure)).toBe(ROWS - 100);
  }, 60_000);

  it('contract problems (no article on any line) are capped the same way', async () => {
    const failure = await failureOf(csvWithoutArticles());
    expect(failure.problems).toHaveLength(101);
    expect(failure.problems[0]).toEqual({ path: 'row 2, column article', message: expect.stringContaining('itemNumber') });
    expect(unlisted(failure)).toBeGreaterThanOrEqual(ROWS - 100);
  }, 60_000);
});
