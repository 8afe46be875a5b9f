import { Type, type Static } from '@sinclair/typebox';
import { contractSchemaFile } from '../../contract/schema-files';
import { COLUMN_TYPES } from '../column-types';
import { DEFAULT_MAX_PROBLEMS, TEXT_ENCODINGS } from '../file-settings';
import { block, boolean, expression, integer, oneOfWords, optional, text, withDefault } from './declare';

/**
 * The `file:` block (POST /WorkOrders/File and POST /Items/File read by the engine). The field names of
 * the declarative layouts come from the contract schemas, so a misspelt field is refused at load with a
 * "did you mean" hint and the contract's required fields must be mapped; that is why this part of the
 * format is built by a function (it reads the contract's schema files) rather than at import.
 */

const FIELD_SOURCE_DESCRIPTION = 'Where the field comes from: a bare column name (read directly, fast; `Order No` in backticks if it has spaces), a literal (5, true, "\'PCE\'"), or any JSONata expression over the row, e.g. $uppercase(article).';

export type FieldSourceText = string | number | boolean;
const fieldSource = (description: string) => Type.Union([Type.String(), Type.Number(), Type.Boolean()], { description: `${description} ${FIELD_SOURCE_DESCRIPTION}` });

/** The fields of one contract object, each a field source; the contract's required fields are required. */
function contractFields(file: string, description: string, leaveOut: readonly string[] = []) {
  const schema = contractSchemaFile(file) as { properties: Record<string, { description?: string }>; required: string[] };
  const properties = Object.fromEntries(
    Object.entries(schema.properties).filter(([name]) => !leaveOut.includes(name)).map(([name, property]) => [name, fieldSource(property.description ?? name)]),
  );
  const required = schema.required.filter((name) => !leaveOut.includes(name));
  return Type.Unsafe<Record<string, FieldSourceText>>({ type: 'object', additionalProperties: false, required, properties, description });
}

const encoding = () => withDefault(oneOfWords(TEXT_ENCODINGS, 'Text encoding of the file: auto (byte order mark decides between UTF-8 and UTF-16, otherwise UTF-8), utf-8 (with or without byte order mark), utf-16 (needs the byte order mark), windows-1252.'), 'auto');

export function buildFileBlock() {
  const workOrders = block({
    key: optional(fieldSource('The order key that groups rows (a column name or expression); default: the source of fields.number.')),
    fields: contractFields('work-order.schema.json', 'WorkOrder fields, from the first row of each order. JSONata fields also see all rows of the order as $rows.', ['requests']),
    requests: contractFields('request-line.schema.json', 'Request line fields, one line per row.'),
  }, { description: 'One row per order line: rows with the same key form one work order, in file order; header fields come from the first row of the order, one request line from each row.' });

  const items = block({
    fields: contractFields('item.schema.json', 'Item fields, from each row.'),
  }, { description: 'One item per row.' });

  const csv = block({
    encoding: encoding(),
    delimiter: withDefault(text('Field separator: one character ("," ";" "\\t" for tab, "|"), or auto to pick the most frequent of , ; and tab in the first line.'), 'auto'),
    quote: withDefault(Type.String({ maxLength: 1, description: 'Character around fields that contain the delimiter, quotes or line breaks; "" turns quoting off.' }), '"'),
    escape: withDefault(Type.String({ minLength: 1, maxLength: 1, description: 'Character that escapes a quote inside a quoted field; " means a doubled quote "".' }), '"'),
    header: withDefault(boolean('true: the first row names the columns. false: the file has no header row and names gives the column names.'), true),
    names: optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'Column names, in file order, for files without a header row (header: false).' })),
    comment: optional(text('Lines starting with this text are comments and skipped, e.g. "#".')),
    trim: withDefault(boolean('Remove spaces around every field.'), false),
    skipEmptyLines: withDefault(boolean('Skip empty lines (false: an empty line is a row, and usually a ragged one).'), true),
    allowRaggedRows: withDefault(boolean('Accept rows with fewer or more cells than columns (missing cells are empty, extra cells ignored). false: each such row is reported.'), false),
    relaxQuotes: withDefault(boolean('Accept a quote character inside a field that does not start with one (12"5, 37°36\'37.8"N) as text. false: such a field is an error.'), false),
    maxRecordChars: withDefault(integer(16, undefined, 'Longest one record (row) may be, in characters; protects against a quote left open swallowing the file.'), 65_536),
    types: optional(Type.Record(Type.String(), oneOfWords(COLUMN_TYPES as readonly string[], 'Column type.'), {
      description: 'Column types, checked cell by cell with row and column in the message: text, integer, number, decimal-comma (1.234,5), boolean, date (ISO or DD.MM.YYYY or YYYYMMDD), date:<format>, enum:UnitOfMeasure, enum:RequestType. Untyped columns are text.',
    })),
    workOrders: optional(workOrders),
    items: optional(items),
    output: optional(expression('From the list of rows (objects: column name to typed value; empty cells left out) to the route\'s list.')),
  }, { description: 'The route accepts CSV files (fileType 1) with this layout. Exactly one of workOrders (ParseWorkOrderFile), items (ParseItemFile) or output.' });

  const json = block({
    encoding: encoding(),
    output: expression('From the parsed JSON document ($) to the route\'s list, e.g. $ when the file already holds contract objects.'),
  }, { description: 'The route accepts JSON files (fileType 0).' });

  return block({
    maxFileBytes: withDefault(integer(1, 268_435_456, 'Largest decoded file accepted, in bytes. The server\'s body limit follows it (its Base64 form is 4/3 of it).'), 33_554_432),
    maxProblems: withDefault(integer(1, 10_000, 'At most this many problems are listed in validationStatus; the rest are counted.'), DEFAULT_MAX_PROBLEMS),
    csv: optional(csv),
    json: optional(json),
  }, { description: 'ParseWorkOrderFile and ParseItemFile only: the engine reads the uploaded file itself. A file type without a block here answers FileNotSupported.' });
}

export type FileDocument = Static<ReturnType<typeof buildFileBlock>>;
