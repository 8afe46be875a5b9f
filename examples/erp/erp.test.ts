import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { inflateSync } from 'node:zlib';
import { startErp, type RunningErp } from './main';
import { createErpApp } from './app';
import { crc32, PNG_SIGNATURE } from './png';
import { erpClient } from './test-client';

let erp: RunningErp;
const api = erpClient(() => erp.url);

beforeAll(async () => {
  erp = await startErp({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await erp.close();
});

describe('startErp / health / unknown routes', () => {
  it('listens on a random port and exposes the base path', async () => {
    expect(erp.port).toBeGreaterThan(0);
    expect(erp.url).toBe(`http://127.0.0.1:${erp.port}/api/v1`);
    expect((await api.get('/health')).body).toEqual({ status: 'ok' });
  });

  it('answers unknown routes with a JSON 404 and wrong methods with 405', async () => {
    const unknown = await api.get('/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect(unknown.body.error.message).toContain('/api/v1/nope');
    const wrongMethod = await api.request('DELETE', '/health');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('sales orders', () => {
  it('lists only released seed orders, in ERP shape', async () => {
    const { status, body } = await api.get('/sales-orders');
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 1, pageSize: 50, totalPages: 1, next: null });
    const docNos = body.salesOrders.map((o: any) => o.docNo);
    expect(docNos).toEqual(['SO-1001', 'SO-1002', 'SO-1003', 'SO-1004', 'SO-1006', 'SO-1007', 'SO-1008']);
    expect(body.count).toBe(7);
    expect(body.salesOrders.every((o: any) => o.state === 'RELEASED')).toBe(true);
    const units = new Set(body.salesOrders.flatMap((o: any) => o.positions.map((p: any) => p.unit)));
    for (const unit of ['PCE', 'KG', 'L', 'M']) expect(units).toContain(unit);
  });

  it('returns SO-1001 with nesting, plain dates and German wish date', async () => {
    const { status, body } = await api.get('/sales-orders/SO-1001');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      docNo: 'SO-1001', docId: 50001, headerText: 'Weekly restock Berlin', deliveryDate: '2026-12-01',
      wishDate: '02.12.2026', orderKind: 'STANDARD', warehouse: 'WH-MAIN', shipment: { no: 'SHP-9001' },
      scanCode: '4006381333931', state: 'RELEASED', blockReason: null, batch: 'PW-01',
      custom: { route: 'R12', priority: 'high' },
    });
    expect(body.positions[0]).toEqual({
      posNo: 10, posId: '50001-10',
      article: { no: 'A-100', text: 'Hex bolt M8', longText: 'Zinc plated hex bolt, M8 x 40', lang: 'en', id: 'ART-100' },
      quantity: 12, unit: 'PCE', lot: 'L-2026-11', direction: 'OUT', bin: 'A-01-02', extra: { packing: 'box' },
    });
  });

  it('returns blocked orders by number, with the block reason', async () => {
    const { status, body } = await api.get('/sales-orders/SO-1005');
    expect(status).toBe(200);
    expect(body.state).toBe('BLOCKED');
    expect(body.blockReason).toBe('Customer credit limit exceeded');
  });

  it('has a return order with inbound positions and a short-stock article in SO-1003', async () => {
    const ret = (await api.get('/sales-orders/SO-1004')).body;
    expect(ret.orderKind).toBe('RETURN');
    expect(ret.positions.every((p: any) => p.direction === 'IN')).toBe(true);
    const so1003 = (await api.get('/sales-orders/SO-1003')).body;
    expect(so1003.positions.map((p: any) => p.article.no)).toContain('A-300');
  });

  it('404s unknown orders', async () => {
    const { status, body } = await api.get('/sales-orders/SO-9');
    expect(status).toBe(404);
    expect(body).toEqual({ error: { code: 'NOT_FOUND', message: 'Sales order SO-9 not found' } });
  });

  it('every article referenced by seed positions exists in the item master', async () => {
    const all = [...(await api.get('/sales-orders')).body.salesOrders, (await api.get('/sales-orders/SO-1005')).body];
    for (const no of new Set<string>(all.flatMap((o: any) => o.positions.map((p: any) => p.article.no)))) {
      const article = await api.get(`/articles/${no}`);
      expect(article.status, no).toBe(200);
      expect(article.body.articleNo).toBe(no);
    }
  });
});

describe('put wall batches', () => {
  it('returns the full orders of a batch', async () => {
    const pw1 = await api.get('/putwall-batches/PW-01');
    expect(pw1.status).toBe(200);
    expect(pw1.body.batchCode).toBe('PW-01');
    expect(pw1.body.salesOrders.map((o: any) => o.docNo)).toEqual(['SO-1001', 'SO-1002']);
    expect(pw1.body.salesOrders[0].positions).toHaveLength(2);
    const pw2 = await api.get('/putwall-batches/PW-02');
    expect(pw2.body.salesOrders.map((o: any) => o.docNo)).toEqual(['SO-1006']);
  });

  it('404s unknown batches', async () => {
    const { status, body } = await api.get('/putwall-batches/PW-99');
    expect(status).toBe(404);
    expect(body.error).toEqual({ code: 'NOT_FOUND', message: 'Put wall batch PW-99 not found' });
  });
});

describe('completion reports', () => {
  it('reports shortages and bin stock of the listed orders', async () => {
    const { status, body } = await api.post('/completion-reports', {
      orders: ['SO-1001'], site: 'WH-MAIN', open: { 'A-100': 2, 'A-200': 0 },
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      shortages: [{ article: 'A-100', qty: 2 }],
      binStock: [{ article: 'A-100', bin: 'A-01-02', qty: 12 }, { article: 'A-200', bin: 'B-03-01', qty: 50 }],
    });
  });

  it('skips positions without a bin', async () => {
    const { body } = await api.post('/completion-reports', { orders: ['SO-1002'], site: 'WH-MAIN', open: {} });
    expect(body).toEqual({ shortages: [], binStock: [{ article: 'A-400', bin: 'C-10-01', qty: 250 }] });
  });

  it('404s an unknown order and 400s a bad orders list', async () => {
    const unknown = await api.post('/completion-reports', { orders: ['SO-1001', 'SO-4711'], open: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect(unknown.body.error.message).toContain('SO-4711');
    for (const orders of ['SO-1001', [1001], undefined]) {
      const bad = await api.post('/completion-reports', { orders, open: {} });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('BAD_REQUEST');
    }
  });
});

describe('articles and images', () => {
  it('returns the item master record', async () => {
    const { status, body } = await api.get('/articles/A-100');
    expect(status).toBe(200);
    expect(body).toEqual({
      articleNo: 'A-100', articleId: 'ART-100', text: 'Hex bolt M8', longText: 'Zinc plated hex bolt, M8 x 40',
      lang: 'en', minStock: 50, grossWeightKg: 0.02, heightCm: 1, widthCm: 1, lengthCm: 4, volumeL: 0.004,
      maker: 'Bolt & Co', baseUnit: 'PCE', hasImage: true,
    });
    const missing = await api.get('/articles/A-999');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  async function image(articleNo: string): Promise<Buffer> {
    const res = await fetch(`${erp.url}/articles/${articleNo}/image`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    return Buffer.from(await res.arrayBuffer());
  }

  function chunksOf(png: Buffer): { type: string; data: Buffer }[] {
    const chunks: { type: string; data: Buffer }[] = [];
    for (let offset = 8; offset < png.length;) {
      const length = png.readUInt32BE(offset);
      const type = png.toString('ascii', offset + 4, offset + 8);
      const data = png.subarray(offset + 8, offset + 8 + length);
      expect(png.readUInt32BE(offset + 8 + length), `CRC of ${type}`).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)));
      chunks.push({ type, data });
      offset += 12 + length;
    }
    return chunks;
  }

  it('serves a real 16x16 PNG with valid chunks, different per article', async () => {
    const png = await image('A-100');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const chunks = chunksOf(png);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const ihdr = chunks[0].data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([16, 16, 8, 2]);
    const pixels = inflateSync(chunks[1].data);
    expect(pixels.length).toBe(16 * (1 + 16 * 3));
    expect(pixels[0]).toBe(0); // filter byte
    expect(pixels.subarray(1, 4).equals(pixels.subarray(pixels.length - 3))).toBe(true); // solid colour
    const other = inflateSync(chunksOf(await image('A-200'))[1].data);
    expect(pixels.subarray(1, 4).equals(other.subarray(1, 4))).toBe(false);
  });

  it('crc32 matches the well-known check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('404s images of unknown articles and of articles without image', async () => {
    const noImage = await api.get('/articles/A-500/image');
    expect(noImage.status).toBe(404);
    expect(noImage.body.error).toEqual({ code: 'NOT_FOUND', message: 'Article A-500 has no image' });
    expect((await api.get('/articles/A-500')).body.hasImage).toBe(false);
    const unknown = await api.get('/articles/A-999/image');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});

describe('sales order pages', () => {
  it('pages through released orders with page and pageSize, and says which page is next', async () => {
    const pages = [];
    for (let page = 1; page <= 3; page += 1) pages.push((await api.get(`/sales-orders?page=${page}&pageSize=3`)).body);
    expect(pages.map((p) => [p.page, p.totalPages, p.count, p.next])).toEqual([
      [1, 3, 7, '/api/v1/sales-orders?page=2&pageSize=3'],
      [2, 3, 7, '/api/v1/sales-orders?page=3&pageSize=3'],
      [3, 3, 7, null],
    ]);
    expect(pages.flatMap((p) => p.salesOrders.map((o: any) => o.docNo))).toEqual(['SO-1001', 'SO-1002', 'SO-1003', 'SO-1004', 'SO-1006', 'SO-1007', 'SO-1008']);
    expect((await api.get('/sales-orders?page=9&pageSize=3')).body.salesOrders).toEqual([]);
  });

  it('rejects a bad page or page size with 400', async () => {
    for (const query of ['page=0', 'page=x', 'pageSize=501', 'pageSize=-1', 'page=1.5']) {
      const { status, body } = await api.get(`/sales-orders?${query}`);
      expect(status).toBe(400);
      expect(body.error.code).toBe('BAD_REQUEST');
    }
  });
});

describe('extra generated orders', () => {
  it('adds 500 deterministic released orders with 1-5 positions', async () => {
    const big = await startErp({ extraOrders: 500 });
    try {
      const client = erpClient(() => big.url);
      const first = (await client.get('/sales-orders?pageSize=500')).body;
      expect(first).toMatchObject({ count: 507, page: 1, pageSize: 500, totalPages: 2, next: '/api/v1/sales-orders?page=2&pageSize=500' });
      const second = (await client.get('/sales-orders?page=2&pageSize=500')).body;
      expect(second).toMatchObject({ count: 507, page: 2, totalPages: 2, next: null });
      const body = { salesOrders: [...first.salesOrders, ...second.salesOrders] };
      expect(body.salesOrders).toHaveLength(507);
      const generated = body.salesOrders.filter((o: any) => /^SO-2\d{5}$/.test(o.docNo));
      expect(generated).toHaveLength(500);
      expect(generated[0].docNo).toBe('SO-200001');
      for (const order of generated) {
        expect(order.state).toBe('RELEASED');
        expect(order.positions.length).toBeGreaterThanOrEqual(1);
        expect(order.positions.length).toBeLessThanOrEqual(5);
        expect(order.positions.map((p: any) => p.article.no)).not.toContain('A-300');
      }
      const again = createErpApp({ extraOrders: 500 }).state.salesOrders.get('SO-200123');
      expect(again).toEqual(generated.find((o: any) => o.docNo === 'SO-200123'));
      expect(createErpApp().state.salesOrders.size).toBe(8);
    } finally {
      await big.close();
    }
  });
});
