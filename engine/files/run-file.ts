import type { Outcome } from '../contract/envelope';
import { contractEnums } from '../contract/enums';
import { listedOf, unlistedOf, type Validator } from '../contract/schema-registry';
import { OperationFailure, type Problem } from '../errors';
import type { CsvLayout, FileOperation, JsonLayout } from '../mapping/model';
import { evaluateAt } from '../mapping/evaluate';
import { buildRecords, rowObject } from './build-records';
import { decodeBase64Strict } from './decode-base64';
import { decodeText, type TextEncoding } from './decode-text';
import { parseCsv } from './parse-csv';
import { parseJsonFile } from './parse-json';
import { FileProblems } from './problems';
import { reportByPath, reportByRow } from './trace-problems';
import { checkColumns, convertTypedCells, referencedColumns } from './typed-cells';

/**
 * POST /WorkOrders/File and POST /Items/File in `file` mode: the engine reads the upload itself.
 * Base64 → bytes → text → CSV rows or a JSON document → contract objects → contract check. Every
 * problem the operator can fix becomes a FILE_INVALID failure (InvalidInput) listing all of them.
 */

/** JSONata gives a lone object for a one-element result and nothing for none; the file routes want a list. */
function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The contract check, capped at the room the problem list has left (plus `skipped`, the problems the
 * caller will drop as already reported), so a file that is wrong on every row costs one linear pass.
 */
function checkContract(data: unknown[], checkData: Validator | undefined, problems: FileProblems, skipped = 0): readonly Problem[] {
  if (!checkData) return [];
  const found = checkData(data, problems.room + Math.min(skipped, 1000));
  // Past the cap, the problems of rows already reported (bad cells, ragged rows) cannot be told apart,
  // so only what certainly is new is counted.
  problems.addUnlisted(Math.max(0, unlistedOf(found) - skipped));
  return listedOf(found);
}

/** Synchronous, so the decoded bytes (as large as the file) are garbage as soon as the text exists. */
function readText(fileContent: string, maxFileBytes: number, encoding: TextEncoding): string {
  return decodeText(decodeBase64Strict(fileContent, maxFileBytes), encoding);
}

async function fromCsv(text: string, layout: CsvLayout, checkData: Validator | undefined, problems: FileProblems): Promise<unknown[]> {
  const table = parseCsv(text, layout, problems);
  if (table.records.length === 0 && problems.count === 0) return []; // an empty file, or a header alone
  checkColumns(table, referencedColumns(layout.types, layout.build), problems);
  problems.throwIfAny(); // a missing column or a broken header would make every row wrong: say that once
  const failed = convertTypedCells(table, layout.types, problems);

  if (layout.build.kind === 'output') {
    // A JSONata transform cannot say which row a contract problem came from, so bad cells go first.
    problems.throwIfAny();
    const rows = table.records.map((_, index) => rowObject(table, index));
    const data = asList(await evaluateAt(layout.build.expression, rows, 'csv.output', 'FILE_INVALID'));
    reportByPath(checkContract(data, checkData, problems), problems);
    problems.throwIfAny();
    return data;
  }
  const built = await buildRecords(table, layout.build, problems);
  reportByRow(checkContract(built.data, checkData, problems, failed.size + table.ragged.size), built, layout.build, table, failed, problems);
  problems.throwIfAny();
  return built.data;
}

async function fromJson(text: string, layout: JsonLayout, checkData: Validator | undefined, problems: FileProblems): Promise<unknown[]> {
  const parsed = parseJsonFile(text);
  if (parsed.empty) return [];
  const data = asList(await evaluateAt(layout.output, parsed.value, 'json.output', 'FILE_INVALID'));
  reportByPath(checkContract(data, checkData, problems), problems);
  problems.throwIfAny();
  return data;
}

export async function runFileOperation(operation: FileOperation, input: unknown, checkData: Validator | undefined): Promise<Outcome> {
  const { fileContent, fileType } = input as { fileContent: string; fileType: number };
  const typeName = contractEnums().get('FileType')?.byValue.get(fileType);
  const layout = typeName === 'CSV' ? operation.csv : typeName === 'JSON' ? operation.json : undefined;
  if (!layout) {
    const accepted = [operation.json ? 'JSON' : '', operation.csv ? 'CSV' : ''].filter(Boolean).join(' and ');
    const message = `this adapter does not accept ${typeName ?? `file type ${fileType}`} files here; it accepts ${accepted}`;
    throw new OperationFailure('FILE_NOT_SUPPORTED', message, [{ path: 'fileType', message }]);
  }
  const text = readText(fileContent, operation.maxFileBytes, layout.encoding);
  const problems = new FileProblems(operation.maxProblems);
  const data = typeName === 'CSV' ? await fromCsv(text, layout as CsvLayout, checkData, problems) : await fromJson(text, layout as JsonLayout, checkData, problems);
  return { resultName: operation.route.successResult, data };
}
