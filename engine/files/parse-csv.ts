import { finished } from 'node:stream/promises';
import { parse as parseStream, type CsvError } from 'csv-parse';
import { parse, type Options } from 'csv-parse/sync';
import { TimeSlices, turnEventLoop } from '../time-slices';
import { detectDelimiter } from './detect-delimiter';
import { fileInvalid, type FileProblems } from './problems';

/**
 * CSV text → column names and records (arrays of cell texts), with csv-parse doing the parsing. The
 * text arrives in pieces (decoded from the upload as the parser asks) and goes through csv-parse's
 * stream parser between turns of the event loop: a 200,000-line file neither exists as one text nor
 * stops the process while it is read. Records are kept as arrays, not objects: building one object per
 * row costs more than the parsing itself on a 200,000-line file. Row numbers are not tracked on the way
 * either (csv-parse's per-record info doubles the parse time); `rowOf` recomputes them with a second
 * parse of the whole text, decoded again, only when a problem needs one.
 */

export type { CsvOptions } from '../mapping/file-settings';
import type { CsvOptions } from '../mapping/file-settings';

/** A file's text: in pieces for reading, whole only for row numbers and error descriptions. */
export interface CsvText {
  pieces(): AsyncIterator<string>;
  whole(): string;
}

/** A text that is already whole. */
export function wholeText(text: string): CsvText {
  return {
    async *pieces() {
      yield text;
    },
    whole: () => text,
  };
}

export interface CsvTable {
  readonly columns: readonly string[];
  /** Data records (the header row is not among them); cells may be replaced by typed values later. */
  readonly records: unknown[][];
  /** Data records reported as having the wrong number of cells (their other problems would be noise). */
  readonly ragged: ReadonlySet<number>;
  /** The file row (1-based line where the record starts; the header is row 1) of data record `index`. */
  rowOf(index: number): number;
}

function parserOptions(options: CsvOptions, delimiter: string): Options {
  return {
    delimiter,
    quote: options.quote === '' ? false : options.quote,
    escape: options.escape,
    comment: options.comment,
    // A comment character inside a field ("Size #4") is text, not the start of a comment.
    comment_no_infix: true,
    trim: options.trim,
    skip_empty_lines: options.skipEmptyLines,
    relax_column_count: true, // ragged rows are reported per row below, not as one fatal error
    relax_quotes: options.relaxQuotes,
    max_record_size: options.maxRecordChars,
    bom: false, // the text decoder has already removed it
  };
}

/** Line after the last record csv-parse completed before it failed: where the broken record starts. */
function rowAfterLastRecord(text: string, options: Options): number {
  let lastEnd = 0;
  try {
    parse(text, { ...options, on_record: (_record, context) => { lastEnd = context.lines; return null; } });
  } catch {
    // expected: this parse fails the same way
  }
  return lastEnd + 1;
}

function describeParseError(error: { code?: string; lines?: number; message: string }, text: string, options: CsvOptions, parserOptions: Options): never {
  const where = typeof error.lines === 'number' ? `row ${error.lines}` : 'file';
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      // csv-parse reports where the file ended; the operator needs the row where the quote opened.
      throw fileInvalid(`row ${rowAfterLastRecord(text, parserOptions)}`, `a quoted field is never closed (a ${options.quote} is missing); the file ends inside it`);
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      throw fileInvalid(where, `text follows the closing quote of a field; a quote inside a quoted field must be written twice (${options.quote}${options.quote})`);
    case 'INVALID_OPENING_QUOTE':
      throw fileInvalid(where, `a quote character appears inside a field that does not start with one; quote the whole field (or the mapping can set relaxQuotes: true)`);
    case 'CSV_MAX_RECORD_SIZE':
      throw fileInvalid(where, `one record is longer than ${options.maxRecordChars} characters (file.maxRecordChars); is a quote left open?`);
    default:
      throw fileInvalid(where, `the CSV cannot be read: ${error.message}`);
  }
}

/** Start line of every record (header included), from a second parse that asks csv-parse for line info. */
function recordStartLines(text: string, options: Options): Int32Array {
  const starts: number[] = [];
  let previousEnd = 0;
  let previousSkipped = 0;
  parse(text, {
    ...options,
    on_record: (record, context) => {
      const skipped = context.empty_lines + context.comment_lines;
      starts.push(previousEnd + 1 + (skipped - previousSkipped));
      previousEnd = context.lines;
      previousSkipped = skipped;
      return null; // nothing to keep
    },
  });
  return Int32Array.from(starts);
}

interface ParseFailure {
  readonly error: { code?: string; lines?: number; message: string };
}

/**
 * Every record of the text, parsed piece by piece. A CSV error stops the parsing but not the reading:
 * the rest of the text is still decoded, so a decoding problem later in the file is the one reported,
 * as when the whole text was decoded before parsing.
 */
async function parseRecords(text: CsvText, options: CsvOptions): Promise<{ all: string[][]; csvOptions: Options } | ParseFailure & { csvOptions: Options }> {
  const slices = new TimeSlices();
  const pieces = text.pieces();
  let head = '';
  let delimiter = options.delimiter === 'auto' ? undefined : options.delimiter;
  let ended = false;
  // `auto` needs the first line with data, complete, before the parser can start.
  while (delimiter === undefined) {
    const next = await pieces.next();
    if (next.done) ended = true;
    else head += next.value;
    delimiter = detectDelimiter(head, options.quote, options.comment, ended);
  }
  const csvOptions = parserOptions(options, delimiter);
  const all: string[][] = [];
  let failure: CsvError | undefined;
  const parser = parseStream(csvOptions);
  parser.on('data', (record: string[]) => all.push(record));
  parser.on('error', (error: CsvError) => {
    failure ??= error;
  });
  // After an error the parser is destroyed at once; its 'error' event follows on a later tick.
  const feed = (piece: string) => {
    if (!parser.destroyed && piece !== '') parser.write(piece);
  };
  feed(head);
  while (!ended) {
    if (slices.due()) await slices.turn();
    const next = await pieces.next();
    if (next.done) ended = true;
    else feed(next.value);
  }
  if (!parser.destroyed) {
    parser.end();
    await finished(parser).catch(() => undefined); // the error, if the end of the text has one, is in `failure`
  }
  // A parse error reaches the 'error' listener on a later tick.
  await turnEventLoop();
  return failure ? { error: failure, csvOptions } : { all, csvOptions };
}

export async function parseCsv(text: CsvText, options: CsvOptions, problems: FileProblems): Promise<CsvTable> {
  const parsed = await parseRecords(text, options);
  const { csvOptions } = parsed;
  if ('error' in parsed) describeParseError(parsed.error, text.whole(), options, csvOptions);
  const { all } = parsed;
  let lines: Int32Array | undefined;
  const headerRows = options.header ? 1 : 0;
  const rowOf = (index: number) => {
    lines ??= recordStartLines(text.whole(), csvOptions);
    return lines[index + headerRows];
  };
  const ragged = new Set<number>();
  if (all.length === 0) return { columns: options.names ?? [], records: [], ragged, rowOf };

  const columns = options.header ? all[0] : [...(options.names ?? [])];
  const records: unknown[][] = options.header ? all.slice(1) : all;
  if (options.header) {
    const seen = new Map<string, number>();
    columns.forEach((name, index) => {
      if (name === '') return; // an unnamed column (a trailing delimiter) is allowed, and unusable
      const first = seen.get(name);
      if (first !== undefined) problems.add('row 1', `the column name ${JSON.stringify(name)} appears twice (columns ${first + 1} and ${index + 1})`);
      else seen.set(name, index);
    });
  }
  if (!options.allowRaggedRows) {
    for (let index = 0; index < records.length; index += 1) {
      const cells = records[index].length;
      if (cells !== columns.length) {
        ragged.add(index);
        problems.add(`row ${rowOf(index)}`, `has ${cells} cell(s) but the ${options.header ? 'header' : 'mapping'} names ${columns.length} column(s)`);
      }
    }
  }
  return { columns, records, ragged, rowOf };
}
