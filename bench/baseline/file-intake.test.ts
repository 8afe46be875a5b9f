import { describe, expect, it } from 'vitest';
import { orderCsv } from '../lib/order-csv';
import { workOrdersFromCsv } from './file-intake';
import { TransformError } from './transforms';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const HEADER = 'orderNo;dueDate;customer;shipment;line;article;itemName;qty;unit;lot\n';

describe('the baseline CSV intake', () => {
  it('groups lines into work orders in file order', () => {
    const csv = `${HEADER}SO-1;01.12.2026;Acme;DN-1;10;A-100;"Bolt; zinc";12;PCE;L-1\nSO-2;02.12.2026;Beta;DN-2;10;A-200;Cable;3;M;\nSO-1;01.12.2026;Acme;DN-1;20;A-300;Oil;1;L;\n`;
    expect(workOrdersFromCsv(b64(csv))).toEqual([
      { number: 'SO-1', dueDate: '2026-12-01T00:00:00Z', description: 'Acme', deliveryNumber: 'DN-1', requests: [
        { itemNumber: 'A-100', itemName: 'Bolt; zinc', requestedAmount: 12, lotNumber: 'L-1', order: 10, unitOfMeasure: 0 },
        { itemNumber: 'A-300', itemName: 'Oil', requestedAmount: 1, order: 20, unitOfMeasure: 7 },
      ] },
      { number: 'SO-2', dueDate: '2026-12-02T00:00:00Z', description: 'Beta', deliveryNumber: 'DN-2', requests: [{ itemNumber: 'A-200', itemName: 'Cable', requestedAmount: 3, order: 10, unitOfMeasure: 1 }] },
    ]);
  });

  it('refuses a line with an unreadable quantity, naming row and column', () => {
    expect(() => workOrdersFromCsv(b64(`${HEADER}SO-1;01.12.2026;Acme;DN-1;10;A-100;Bolt;many;PCE;\n`))).toThrow(new TransformError('row 2, column qty: "many" is not a whole number'));
  });

  it('reads the benchmark file: 5 lines per order', () => {
    const orders = workOrdersFromCsv(b64(orderCsv(20)));
    expect(orders).toHaveLength(4);
    expect(orders.every((order) => order.requests.length === 5)).toBe(true);
  });
});
