import { describe, expect, it } from 'vitest';
import { workOrdersFromCsv } from './file-intake';
import { TransformError } from './transforms';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('the baseline CSV intake', () => {
  it('groups lines into work orders in file order', () => {
    const csv = 'docNo;deliveryDate;article;quantity;unit\nSO-1;2026-12-01;A-100;12;PCE\nSO-2;2026-12-02;A-200;2,5;M\nSO-1;2026-12-01;A-300;1;L\n';
    expect(workOrdersFromCsv(b64(csv))).toEqual([
      { number: 'SO-1', dueDate: '2026-12-01T00:00:00Z', requests: [
        { itemNumber: 'A-100', requestedAmount: 12, unitOfMeasure: 0, order: 10 },
        { itemNumber: 'A-300', requestedAmount: 1, unitOfMeasure: 7, order: 20 },
      ] },
      { number: 'SO-2', dueDate: '2026-12-02T00:00:00Z', requests: [{ itemNumber: 'A-200', requestedAmount: 2.5, unitOfMeasure: 1, order: 10 }] },
    ]);
  });

  it('refuses a line with an unreadable quantity, naming the line', () => {
    expect(() => workOrdersFromCsv(b64('docNo;deliveryDate;article;quantity;unit\nSO-1;2026-12-01;A-100;many;PCE\n'))).toThrow(new TransformError('line 2: quantity "many" is not a number'));
  });
});
