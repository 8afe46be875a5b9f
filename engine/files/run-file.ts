import type { Outcome } from '../contract/envelope';
import { contractEnums } from '../contract/enums';
import { listedOf, unlistedOf, type Validator } from '../contract/schema-registry';
import { OperationFailure, type Problem } from '../errors';
import type { CsvLayout, FileOperation, JsonLayout } from '../mapping/model';
import { withoutEmptyValues } from '../mapping/empty-values';
import { evaluateAt } from '../mapping/evaluate';
import { buildRecords, rowObject } from './build-records';
import { TimeSlices } from '../time-slices';
import { readBase64 } from './decode-base64';
import { decodeText, textDecoding, type TextEncoding } from './decode-text';
import { parseCsv, type CsvTable, type CsvText } from './parse-csv';
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
async function checkContract(data: unknown[], checkData: Validator | undefined, problems: FileProblems, skipped = 0): Promise<readonly Problem[]> {
  if (!checkData) return [];
  const found = await checkData.inSlices(data, problems.room + Math.min(skipped, 1000));
  // Past the cap, the problems of rows already reported (bad cells, ragged rows) cannot be told apart,
  // so only what certainly is new is counted.
  problems.addUnlisted(Math.max(0, unlistedOf(found) - skipped));
  return listedOf(found);
}

/** A JSON file is parsed whole, so it is decoded whole. */
async function readText(fileContent: string, maxFileBytes: number, encoding: TextEncoding): Promise<string> {
  return decodeText((await readBase64(fileContent, maxFileBytes)).whole(), encoding);
}

/**
 * A CSV file's text, decoded piece by piece while the parser reads it: neither the file's bytes nor its
 * text exist whole (they would be 2 × 19 MB for 200,000 lines). What the first bytes show (a byte order
 * mark the encoding forbids, an odd UTF-16 length) is refused before reading starts.
 */
async function csvText(fileContent: string, maxFileBytes: number, encoding: TextEncoding): Promise<CsvText> {
  const file = await readBase64(fileContent, maxFileBytes);
  const head = Buffer.from(fileContent.slice(0, 4), 'base64');
  const decoding = textDecoding(head, file.size, encoding, file.whole);
  return {
    async *pieces() {
      for (const bytes of file.pieces()) {
        const text = decoding.write(bytes);
        if (text !== '') yield text;
      }
      const rest = decoding.end();
      if (rest !== '') yield rest;
    },
    whole: () => decodeText(file.whole(), encoding),
  };
}

/** The rows as objects for a JSONata transform, built between turns of the event loop. */
async function rowObjects(table: CsvTable): Promise<Record<string, unknown>[]> {
  const slices = new TimeSlices(256);
  const rows = new Array<Record<string, unknown>>(table.records.length);
  for (let index = 0; index < rows.length; index += 1) {
    rows[index] = rowObject(table, index);
    if (slices.due()) await slices.turn();
  }
  return rows;
}

/**
 * Cells whose text is one of the system's emptyValues become empty cells, before any type is read: an
 * export's `0001-01-01` or `N/A` is no value, as an empty cell is none. In slices, as every row loop is.
 */
async function blankEmptyValues(table: CsvTable, emptyValues: readonly unknown[]): Promise<void> {
  const texts = new Set(emptyValues.filter((value): value is string => typeof value === 'string'));
  if (texts.size === 0) return;
  const slices = new TimeSlices(1024);
  for (const record of table.records) {
    if (slices.due()) await slices.turn();
    for (let column = 0; column < record.length; column += 1) if (texts.has(record[column] as string)) record[column] = '';
  }
}

async function fromCsv(text: CsvText, layout: CsvLayout, checkData: Validator | undefined, problems: FileProblems, emptyValues: readonly unknown[]): Promise<unknown[]> {
  const table = await parseCsv(text, layout, problems);
  if (table.records.length === 0 && problems.count === 0) return []; // an empty file, or a header alone
  checkColumns(table, referencedColumns(layout.types, layout.build), problems);
  problems.throwIfAny(); // a missing column or a broken header would make every row wrong: say that once
  await blankEmptyValues(table, emptyValues);
  const failed = await convertTypedCells(table, layout.types, problems);

  if (layout.build.kind === 'output') {
    // A JSONata transform cannot say which row a contract problem came from, so bad cells go first.
    problems.throwIfAny();
    const rows = await rowObjects(table);
    const data = asList(await evaluateAt(layout.build.expression, rows, 'csv.output', 'FILE_INVALID'));
    reportByPath(await checkContract(data, checkData, problems), problems);
    problems.throwIfAny();
    return data;
  }
  const built = await buildRecords(table, layout.build, problems);
  reportByRow(await checkContract(built.data, checkData, problems, failed.size + table.ragged.size), built, layout.build, table, failed, problems);
  problems.throwIfAny();
  return built.data;
}

async function fromJson(text: string, layout: JsonLayout, checkData: Validator | undefined, problems: FileProblems, emptyValues: readonly unknown[]): Promise<unknown[]> {
  const parsed = parseJsonFile(text);
  if (parsed.empty) return [];
  const data = asList(await evaluateAt(layout.output, withoutEmptyValues(parsed.value, emptyValues), 'json.output', 'FILE_INVALID'));
  reportByPath(await checkContract(data, checkData, problems), problems);
  problems.throwIfAny();
  return data;
}

/** `emptyValues`: the system's (system.emptyValues), which an upload's cells and fields obey as the ERP's answers do. */
export async function runFileOperation(operation: FileOperation, input: unknown, checkData: Validator | undefined, emptyValues: readonly unknown[]): Promise<Outcome> {
  const { fileContent, fileType } = input as { fileContent: string; fileType: number };
  const typeName = contractEnums().get('FileType')?.byValue.get(fileType);
  const layout = typeName === 'CSV' ? operation.csv : typeName === 'JSON' ? operation.json : undefined;
  if (!layout) {
    const accepted = [operation.json ? 'JSON' : '', operation.csv ? 'CSV' : ''].filter(Boolean).join(' and ');
    const message = `this adapter does not accept ${typeName ?? `file type ${fileType}`} files here; it accepts ${accepted}`;
    throw new OperationFailure('FILE_NOT_SUPPORTED', message, [{ path: 'fileType', message }]);
  }
  const problems = new FileProblems(operation.maxProblems);
  const data = typeName === 'CSV'
    ? await fromCsv(await csvText(fileContent, operation.maxFileBytes, layout.encoding), layout as CsvLayout, checkData, problems, emptyValues)
    : await fromJson(await readText(fileContent, operation.maxFileBytes, layout.encoding), layout as JsonLayout, checkData, problems, emptyValues);
  return { resultName: operation.route.successResult, data };
}
