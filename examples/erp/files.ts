/**
 * File interface of the ERP: uploaded sales-order and article files
 * (`{ format: "json" | "csv", content: "<base64>" }`) are decoded and parsed
 * into the ERP's own shapes. CSV files are `;`-separated with a fixed header;
 * numbers may use a decimal comma (`12,5`) as German ERP exports do.
 */
import { ErpError } from './errors';
import type { ImportedArticle, ImportedPosition, ImportedSalesOrder } from './types';

export type FileFormat = 'json' | 'csv';

export const SALES_ORDER_CSV_HEADER = ['docNo', 'deliveryDate', 'article', 'quantity', 'unit'];
export const ARTICLE_CSV_HEADER = ['articleNo', 'text', 'baseUnit', 'grossWeightKg'];

function parseError(message: string): ErpError {
  return new ErpError(422, 'PARSE_ERROR', message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates the upload envelope and returns the format and decoded text. */
export function decodeUpload(body: unknown): { format: FileFormat; text: string } {
  if (!isRecord(body)) throw new ErpError(400, 'BAD_REQUEST', 'Body must be an object { format, content }');
  const { format, content } = body;
  if (format !== 'json' && format !== 'csv') {
    throw new ErpError(415, 'UNSUPPORTED_FORMAT', `Unsupported file format ${JSON.stringify(format ?? null)}; use "json" or "csv"`);
  }
  if (typeof content !== 'string') throw new ErpError(400, 'BAD_REQUEST', 'content must be a base64 string');
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw parseError('content is not valid base64');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(compact, 'base64'));
  } catch {
    throw parseError('content is not UTF-8 text');
  }
  return { format, text: text.replace(/^\uFEFF/, '') };
}

function parseJsonArray(text: string, what: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw parseError(`Invalid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw parseError(`Expected a JSON array of ${what}`);
  return parsed;
}

/** Splits one CSV line at `;`, honouring double quotes (`""` escapes a quote). */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { current += '"'; i++; }
      else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"' && current === '') quoted = true;
    else if (ch === ';') { fields.push(current); current = ''; }
    else current += ch;
  }
  if (quoted) throw parseError('Unterminated quoted field');
  fields.push(current);
  return fields.map((f) => f.trim());
}

/** Parses a CSV text with the expected header into rows (line number + named fields). */
function parseCsv(text: string, header: string[]): { line: number; fields: Record<string, string> }[] {
  const lines = text.split(/\r?\n/);
  const headerIndex = lines.findIndex((l) => l.trim() !== '');
  if (headerIndex < 0) throw parseError('Empty CSV file');
  const actual = splitCsvLine(lines[headerIndex]);
  if (actual.join(';') !== header.join(';')) {
    throw parseError(`Unexpected CSV header "${actual.join(';')}", expected "${header.join(';')}"`);
  }
  const rows: { line: number; fields: Record<string, string> }[] = [];
  for (let i = headerIndex + 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const values = splitCsvLine(lines[i]);
    if (values.length !== header.length) {
      throw parseError(`Line ${i + 1}: expected ${header.length} fields, got ${values.length}`);
    }
    rows.push({ line: i + 1, fields: Object.fromEntries(header.map((h, k) => [h, values[k]])) });
  }
  return rows;
}

function required(value: string, name: string, line: number): string {
  if (value === '') throw parseError(`Line ${line}: ${name} is empty`);
  return value;
}

/** Parses `12`, `12.5` or `12,5`. */
function parseNumber(value: string, name: string, where: string): number {
  const normalized = value.replace(',', '.');
  const n = Number(normalized);
  if (normalized === '' || !/^-?\d+(\.\d+)?$/.test(normalized) || !Number.isFinite(n)) {
    throw parseError(`${where}: ${name} "${value}" is not a number`);
  }
  return n;
}

function checkDate(value: unknown, where: string): void {
  if (value === undefined || value === null) return;
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  const date = match ? new Date(Date.UTC(+match[1], +match[2] - 1, +match[3])) : null;
  if (!match || !date || date.getUTCMonth() !== +match[2] - 1 || date.getUTCDate() !== +match[3]) {
    throw parseError(`${where}: deliveryDate ${JSON.stringify(value)} is not a date yyyy-MM-dd`);
  }
}

function jsonSalesOrder(entry: unknown, index: number): ImportedSalesOrder {
  const where = `Sales order ${index + 1}`;
  if (!isRecord(entry)) throw parseError(`${where}: not an object`);
  if (typeof entry.docNo !== 'string' || entry.docNo === '') throw parseError(`${where}: docNo missing`);
  checkDate(entry.deliveryDate, where);
  const rawPositions = entry.positions ?? [];
  if (!Array.isArray(rawPositions)) throw parseError(`${where}: positions is not an array`);
  const positions = rawPositions.map((pos: unknown, k): ImportedPosition => {
    if (!isRecord(pos)) throw parseError(`${where}, position ${k + 1}: not an object`);
    if (pos.quantity !== undefined && typeof pos.quantity !== 'number') {
      throw parseError(`${where}, position ${k + 1}: quantity is not a number`);
    }
    if (pos.article !== undefined && !isRecord(pos.article)) {
      throw parseError(`${where}, position ${k + 1}: article is not an object`);
    }
    return { ...pos, posNo: typeof pos.posNo === 'number' ? pos.posNo : (k + 1) * 10 } as ImportedPosition;
  });
  return { ...entry, docNo: entry.docNo, positions } as ImportedSalesOrder;
}

export function parseSalesOrderFile(format: FileFormat, text: string): ImportedSalesOrder[] {
  if (format === 'json') return parseJsonArray(text, 'sales orders').map(jsonSalesOrder);

  const orders = new Map<string, ImportedSalesOrder>();
  for (const { line, fields } of parseCsv(text, SALES_ORDER_CSV_HEADER)) {
    const docNo = required(fields.docNo, 'docNo', line);
    const deliveryDate = required(fields.deliveryDate, 'deliveryDate', line);
    checkDate(deliveryDate, `Line ${line}`);
    let order = orders.get(docNo);
    if (!order) {
      order = { docNo, deliveryDate, positions: [] };
      orders.set(docNo, order);
    } else if (order.deliveryDate !== deliveryDate) {
      throw parseError(`Line ${line}: deliveryDate ${deliveryDate} differs from ${order.deliveryDate} for ${docNo}`);
    }
    order.positions.push({
      posNo: (order.positions.length + 1) * 10,
      article: { no: required(fields.article, 'article', line) },
      quantity: parseNumber(fields.quantity, 'quantity', `Line ${line}`),
      unit: required(fields.unit, 'unit', line) as ImportedPosition['unit'],
    });
  }
  return [...orders.values()];
}

function jsonArticle(entry: unknown, index: number): ImportedArticle {
  const where = `Article ${index + 1}`;
  if (!isRecord(entry)) throw parseError(`${where}: not an object`);
  if (typeof entry.articleNo !== 'string' || entry.articleNo === '') throw parseError(`${where}: articleNo missing`);
  const weight = entry.grossWeightKg;
  if (weight !== undefined && weight !== null && typeof weight !== 'number') {
    throw parseError(`${where}: grossWeightKg is not a number`);
  }
  return { ...entry, articleNo: entry.articleNo } as ImportedArticle;
}

export function parseArticleFile(format: FileFormat, text: string): ImportedArticle[] {
  if (format === 'json') return parseJsonArray(text, 'articles').map(jsonArticle);

  return parseCsv(text, ARTICLE_CSV_HEADER).map(({ line, fields }) => ({
    articleNo: required(fields.articleNo, 'articleNo', line),
    text: fields.text,
    baseUnit: fields.baseUnit as ImportedArticle['baseUnit'],
    grossWeightKg: fields.grossWeightKg === '' ? null : parseNumber(fields.grossWeightKg, 'grossWeightKg', `Line ${line}`),
  }));
}
