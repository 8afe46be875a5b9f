import { contractSchemaFile } from '../contract/schema-files';
import { COLUMN_TYPES } from './column-types';
import { TEXT_ENCODINGS } from './file-settings';

/**
 * JSON Schema of the `file:` block (POST /WorkOrders/File and POST /Items/File parsed by the engine).
 * The field names of the declarative layouts come from the contract schemas, so a misspelt field is
 * refused at load with a "did you mean" hint, and the contract's required fields must be mapped.
 */

const expression = (description: string) => ({ type: 'string', minLength: 1, description: `JSONata expression. ${description}` });

const fieldSource = {
  type: ['string', 'number', 'boolean'],
  description: 'Where the field comes from: a bare column name (read directly, fast; `Order No` in backticks if it has spaces), a literal (5, true, "\'PCE\'"), or any JSONata expression over the row, e.g. $uppercase(article).',
};

function contractFields(file: string, leaveOut: readonly string[] = []): Record<string, unknown> {
  const schema = contractSchemaFile(file) as { properties: Record<string, { description?: string }>; required: string[] };
  const properties = Object.fromEntries(
    Object.entries(schema.properties).filter(([name]) => !leaveOut.includes(name)).map(([name, property]) => [name, { ...fieldSource, description: `${property.description ?? name} ${fieldSource.description}` }]),
  );
  return { type: 'object', additionalProperties: false, required: schema.required.filter((name) => !leaveOut.includes(name)), properties };
}

const encoding = { enum: [...TEXT_ENCODINGS], default: 'auto', description: 'Text encoding of the file: auto (byte order mark decides between UTF-8 and UTF-16, otherwise UTF-8), utf-8 (with or without byte order mark), utf-16 (needs the byte order mark), windows-1252.' };

const workOrders = {
  type: 'object',
  additionalProperties: false,
  required: ['fields', 'requests'],
  description: 'One row per order line: rows with the same key form one work order, in file order; header fields come from the first row of the order, one request line from each row.',
  properties: {
    key: { ...fieldSource, description: 'The order key that groups rows (a column name or expression); default: the source of fields.number.' },
    fields: { ...contractFields('work-order.schema.json', ['requests']), description: 'WorkOrder fields, from the first row of each order. JSONata fields also see all rows of the order as $rows.' },
    requests: { ...contractFields('request-line.schema.json'), description: 'Request line fields, one line per row.' },
  },
};

const items = {
  type: 'object',
  additionalProperties: false,
  required: ['fields'],
  description: 'One item per row.',
  properties: { fields: { ...contractFields('item.schema.json'), description: 'Item fields, from each row.' } },
};

const csv = {
  type: 'object',
  additionalProperties: false,
  description: 'The route accepts CSV files (fileType 1) with this layout. Exactly one of workOrders (ParseWorkOrderFile), items (ParseItemFile) or output.',
  properties: {
    encoding,
    delimiter: { type: 'string', minLength: 1, default: 'auto', description: 'Field separator: one character ("," ";" "\\t" for tab, "|"), or auto to pick the most frequent of , ; and tab in the first line.' },
    quote: { type: 'string', maxLength: 1, default: '"', description: 'Character around fields that contain the delimiter, quotes or line breaks; "" turns quoting off.' },
    escape: { type: 'string', minLength: 1, maxLength: 1, default: '"', description: 'Character that escapes a quote inside a quoted field; the default (") means a doubled quote "".' },
    header: { type: 'boolean', default: true, description: 'true: the first row names the columns. false: the file has no header row and names: gives the column names.' },
    names: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 }, description: 'Column names, in file order, for files without a header row (header: false).' },
    comment: { type: 'string', minLength: 1, description: 'Lines starting with this text are comments and skipped, e.g. "#".' },
    trim: { type: 'boolean', default: false, description: 'Remove spaces around every field.' },
    skipEmptyLines: { type: 'boolean', default: true, description: 'Skip empty lines (false: an empty line is a row, and usually a ragged one).' },
    allowRaggedRows: { type: 'boolean', default: false, description: 'Accept rows with fewer or more cells than columns (missing cells are empty, extra cells ignored). false: each such row is reported.' },
    relaxQuotes: { type: 'boolean', default: false, description: 'Accept a quote character inside a field that does not start with one (12"5, 37°36\'37.8"N) as text. false: such a field is an error.' },
    maxRecordChars: { type: 'integer', minimum: 16, default: 65536, description: 'Longest one record (row) may be, in characters; protects against a quote left open swallowing the file.' },
    types: {
      type: 'object',
      additionalProperties: { enum: [...COLUMN_TYPES] },
      description: 'Column types, checked cell by cell with row and column in the message: text, integer, number, decimal-comma (1.234,5), boolean, date (ISO or DD.MM.YYYY or YYYYMMDD), date:<format>, enum:UnitOfMeasure, enum:RequestType. Untyped columns are text.',
    },
    workOrders,
    items,
    output: expression('From the list of rows (objects: column name to typed value; empty cells left out) to the route\'s list.'),
  },
};

const json = {
  type: 'object',
  additionalProperties: false,
  required: ['output'],
  description: 'The route accepts JSON files (fileType 0).',
  properties: {
    encoding,
    output: expression('From the parsed JSON document ($) to the route\'s list, e.g. $ when the file already holds contract objects.'),
  },
};

export const fileBlock = {
  type: 'object',
  additionalProperties: false,
  description: 'ParseWorkOrderFile and ParseItemFile only: the engine reads the uploaded file itself. A file type without a block here answers FileNotSupported.',
  properties: {
    maxFileBytes: { type: 'integer', minimum: 1, maximum: 268435456, default: 33554432, description: 'Largest decoded file accepted, in bytes (default 32 MiB). The server body limit must allow its Base64 form (4/3 of it).' },
    maxProblems: { type: 'integer', minimum: 1, maximum: 10000, default: 100, description: 'At most this many problems are listed in validationStatus; the rest are counted.' },
    csv,
    json,
  },
};
