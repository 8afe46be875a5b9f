import { parse } from 'csv-parse/sync';
import { isoFromIsoDate, TransformError, unitOfMeasure } from './transforms';

/**
 * The baseline's POST /WorkOrders/File for CSV: decode, parse with csv-parse, group lines into work
 * orders. The columns are the example ERP's CSV export (`docNo;deliveryDate;article;quantity;unit`),
 * which is what the benchmark's file case sends to both adapters.
 */

export const ORDER_CSV_HEADER = ['docNo', 'deliveryDate', 'article', 'quantity', 'unit'] as const;

interface RequestLine { itemNumber: string; requestedAmount: number; unitOfMeasure: number; order: number }
interface FileWorkOrder { number: string; dueDate: string | undefined; requests: RequestLine[] }

function amount(text: string, line: number): number {
  const normalized = text.replace(',', '.');
  if (!/^-?\d+(\.\d+)?$/.test(normalized)) throw new TransformError(`line ${line}: quantity "${text}" is not a number`);
  return Number(normalized);
}

export function workOrdersFromCsv(base64: string): FileWorkOrder[] {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  const records = parse(text, { delimiter: ';', columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  const orders = new Map<string, FileWorkOrder>();
  records.forEach((record, index) => {
    const line = index + 2;
    for (const column of ORDER_CSV_HEADER) {
      if (!record[column]) throw new TransformError(`line ${line}: ${column} is empty`);
    }
    let order = orders.get(record.docNo);
    if (!order) {
      order = { number: record.docNo, dueDate: isoFromIsoDate(record.deliveryDate), requests: [] };
      orders.set(record.docNo, order);
    }
    order.requests.push({
      itemNumber: record.article,
      requestedAmount: amount(record.quantity, line),
      unitOfMeasure: unitOfMeasure(record.unit),
      order: (order.requests.length + 1) * 10,
    });
  });
  return [...orders.values()];
}
