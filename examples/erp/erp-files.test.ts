import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startErp, type RunningErp } from './main';
import { base64, erpClient } from './test-client';

let erp: RunningErp;
const api = erpClient(() => erp.url);

beforeAll(async () => {
  erp = await startErp();
});
afterAll(async () => {
  await erp.close();
});

describe('POST /files/sales-orders', () => {
  it('parses a ;-separated CSV, grouping rows into orders in file order', async () => {
    const csv = [
      'docNo;deliveryDate;article;quantity;unit',
      'SO-3001;2026-12-15;A-100;12;PCE',
      'SO-3002;2026-12-16;A-400;25,5;KG',
      'SO-3001;2026-12-15;A-200;7.5;M',
      '',
    ].join('\r\n');
    const { status, body } = await api.post('/files/sales-orders', { format: 'csv', content: base64(csv) });
    expect(status).toBe(200);
    expect(body).toEqual({
      salesOrders: [
        {
          docNo: 'SO-3001', deliveryDate: '2026-12-15',
          positions: [
            { posNo: 10, article: { no: 'A-100' }, quantity: 12, unit: 'PCE' },
            { posNo: 20, article: { no: 'A-200' }, quantity: 7.5, unit: 'M' },
          ],
        },
        { docNo: 'SO-3002', deliveryDate: '2026-12-16', positions: [{ posNo: 10, article: { no: 'A-400' }, quantity: 25.5, unit: 'KG' }] },
      ],
    });
  });

  it('parses a JSON array of ERP-shaped orders, numbering partial positions', async () => {
    const orders = [
      { docNo: 'SO-3100', deliveryDate: '2026-12-20', headerText: 'From file', positions: [
        { article: { no: 'A-300' }, quantity: 2, unit: 'L' },
        { posNo: 50, article: { no: 'A-100', text: 'Hex bolt M8' }, quantity: 1 },
      ] },
      { docNo: 'SO-3101' },
    ];
    const { status, body } = await api.post('/files/sales-orders', { format: 'json', content: base64(JSON.stringify(orders)) });
    expect(status).toBe(200);
    expect(body.salesOrders).toEqual([
      { docNo: 'SO-3100', deliveryDate: '2026-12-20', headerText: 'From file', positions: [
        { posNo: 10, article: { no: 'A-300' }, quantity: 2, unit: 'L' },
        { posNo: 50, article: { no: 'A-100', text: 'Hex bolt M8' }, quantity: 1 },
      ] },
      { docNo: 'SO-3101', positions: [] },
    ]);
  });

  it('rejects bad base64 and unparseable content with 422 PARSE_ERROR', async () => {
    const cases: [string, string, string][] = [
      ['csv', '%%% not base64 %%%', 'base64'],
      ['json', base64('[{"docNo": "SO-1",'), 'Invalid JSON'],
      ['json', base64('{"docNo": "SO-1"}'), 'array'],
      ['json', base64('[{"deliveryDate": "2026-12-01"}]'), 'docNo missing'],
      ['csv', base64('docNo,deliveryDate,article,quantity,unit\nSO-1,2026-12-01,A-100,1,PCE'), 'header'],
      ['csv', base64('docNo;deliveryDate;article;quantity;unit\nSO-1;2026-12-01;A-100;1'), 'Line 2: expected 5 fields'],
      ['csv', base64('docNo;deliveryDate;article;quantity;unit\nSO-1;2026-12-01;A-100;lots;PCE'), 'not a number'],
      ['csv', base64('docNo;deliveryDate;article;quantity;unit\nSO-1;01.12.2026;A-100;1;PCE'), 'yyyy-MM-dd'],
      ['csv', '', 'Empty CSV'],
    ];
    for (const [format, content, hint] of cases) {
      const { status, body } = await api.post('/files/sales-orders', { format, content });
      expect(status, hint).toBe(422);
      expect(body.error.code).toBe('PARSE_ERROR');
      expect(body.error.message).toContain(hint);
    }
  });

  it('rejects unknown formats with 415 UNSUPPORTED_FORMAT', async () => {
    const { status, body } = await api.post('/files/sales-orders', { format: 'xml', content: base64('<orders/>') });
    expect(status).toBe(415);
    expect(body.error.code).toBe('UNSUPPORTED_FORMAT');
    expect(body.error.message).toContain('xml');
  });
});

describe('POST /files/articles', () => {
  it('parses articles from CSV (decimal comma allowed, empty weight = null)', async () => {
    const csv = 'articleNo;text;baseUnit;grossWeightKg\nA-700;"Wood glue; D3";KG;1,25\nA-701;Sand;KG;\n';
    const { status, body } = await api.post('/files/articles', { format: 'csv', content: base64(csv) });
    expect(status).toBe(200);
    expect(body).toEqual({
      articles: [
        { articleNo: 'A-700', text: 'Wood glue; D3', baseUnit: 'KG', grossWeightKg: 1.25 },
        { articleNo: 'A-701', text: 'Sand', baseUnit: 'KG', grossWeightKg: null },
      ],
    });
  });

  it('parses articles from JSON in the item-master shape', async () => {
    const articles = [{ articleNo: 'A-800', text: 'Paint thinner', baseUnit: 'L', grossWeightKg: 0.9, hasImage: false }];
    const { status, body } = await api.post('/files/articles', { format: 'json', content: base64(JSON.stringify(articles)) });
    expect(status).toBe(200);
    expect(body.articles).toEqual(articles);
  });

  it('rejects broken article files and unknown formats', async () => {
    const badWeight = await api.post('/files/articles', {
      format: 'json', content: base64('[{"articleNo":"A-1","grossWeightKg":"heavy"}]'),
    });
    expect(badWeight.status).toBe(422);
    expect(badWeight.body.error).toEqual({ code: 'PARSE_ERROR', message: 'Article 1: grossWeightKg is not a number' });
    const badHeader = await api.post('/files/articles', { format: 'csv', content: base64('no;text\nA-1;x') });
    expect(badHeader.status).toBe(422);
    expect(badHeader.body.error.code).toBe('PARSE_ERROR');
    const notUtf8 = await api.post('/files/articles', { format: 'csv', content: Buffer.from([0xff, 0xfe, 0xfd]).toString('base64') });
    expect(notUtf8.status).toBe(422);
    expect(notUtf8.body.error.message).toContain('UTF-8');
    const xlsx = await api.post('/files/articles', { format: 'xlsx', content: base64('x') });
    expect(xlsx.status).toBe(415);
    expect(xlsx.body.error.code).toBe('UNSUPPORTED_FORMAT');
  });

  it('answers 400 BAD_REQUEST when content is missing', async () => {
    const { status, body } = await api.post('/files/articles', { format: 'csv' });
    expect(status).toBe(400);
    expect(body.error.code).toBe('BAD_REQUEST');
  });
});
