import { parse } from 'csv-parse/sync';
import { ORDER_CSV_COLUMNS } from '../lib/order-csv';
import { TransformError, unitOfMeasure } from './transforms';

/**
 * The baseline's POST /WorkOrders/File for CSV, written by hand for the example customer's order
 * export (examples/files/orders.csv): decode, csv-parse, check the numbers, group lines into work
 * orders in file order. Same answer as the engine with mappings/example.yaml, field order included.
 */

interface RequestLine { itemNumber: string; itemName: string; requestedAmount: number; lotNumber?: string; order: number; unitOfMeasure: number }
interface FileWorkOrder { number: string; dueDate: string; description: string; deliveryNumber: string; requests: RequestLine[] }

function wholeNumber(text: string, row: number, column: string): number {
  if (!/^-?\d+$/.test(text)) throw new TransformError(`row ${row}, column ${column}: "${text}" is not a whole number`);
  return Number(text);
}

function isoDate(text: string, row: number): string {
  const match = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(text);
  if (!match) throw new TransformError(`row ${row}, column dueDate: "${text}" is not a DD.MM.YYYY date`);
  return `${match[3]}-${match[2]}-${match[1]}T00:00:00Z`;
}

export function workOrdersFromCsv(base64: string): FileWorkOrder[] {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  const records = parse(text, { delimiter: ';', from_line: 2, comment: '#', skip_empty_lines: true, bom: true }) as string[][];
  const orders = new Map<string, FileWorkOrder>();
  records.forEach((record, index) => {
    const row = index + 2;
    if (record.length !== ORDER_CSV_COLUMNS.length) throw new TransformError(`row ${row}: ${record.length} columns, expected ${ORDER_CSV_COLUMNS.length}`);
    const [orderNo, dueDate, customer, shipment, line, article, itemName, qty, unit, lot] = record;
    let order = orders.get(orderNo);
    if (!order) {
      order = { number: orderNo, dueDate: isoDate(dueDate, row), description: customer, deliveryNumber: shipment, requests: [] };
      orders.set(orderNo, order);
    }
    // Field order as the engine writes it, so both answers are byte-identical.
    order.requests.push({
      itemNumber: article,
      itemName,
      requestedAmount: wholeNumber(qty, row, 'qty'),
      ...(lot === '' ? {} : { lotNumber: lot }),
      order: wholeNumber(line, row, 'line'),
      unitOfMeasure: unitOfMeasure(unit),
    });
  });
  return [...orders.values()];
}
