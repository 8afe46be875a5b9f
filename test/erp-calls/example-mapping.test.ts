import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErp, type RunningErp } from '../../examples/erp/main';
import { createHttpClient, type HttpClient } from '../../engine/http/client';
import { loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';

/** The example mapping on the example ERP with 120 extra orders: the order list spans two pages. */
let erp: RunningErp;
let engine: RunningEngine;
const sent: string[] = [];
const real = createHttpClient();

beforeAll(async () => {
  erp = await startErp({ host: '127.0.0.1', port: 0, extraOrders: 120 });
  // Counts what leaves the engine: the example ERP itself keeps no request counter.
  const counting: HttpClient = {
    send: (request) => {
      sent.push(`${request.method} ${request.url.pathname}${request.url.search}`);
      return real.send(request);
    },
    close: () => real.close(),
  };
  engine = await startEngine(loadExampleMapping(erp.url), { http: counting });
});
afterAll(async () => {
  await engine.close();
  real.close(); // an injected client is the caller's to close
  await erp.close();
});

const get = async (route: string) => (await engine.get(route)).body as { isResultSuccess: boolean; data: { number: string }[] };

describe('example mapping connectivity', () => {
  it('GetWorkOrders reads every page of the paginated order list', async () => {
    sent.length = 0;
    const envelope = await get('/WorkOrders');
    expect(envelope).toMatchObject({ isResultSuccess: true, validationStatus: null });
    expect(envelope.data).toHaveLength(127);
    expect(envelope.data[0].number).toBe('SO-1001');
    expect(envelope.data[126].number).toBe('SO-200120');
    expect(sent).toEqual(['GET /api/v1/sales-orders?page=1&pageSize=100', 'GET /api/v1/sales-orders?page=2&pageSize=100']);
  });

  it('GetItem answers a repeated item from its cache', async () => {
    sent.length = 0;
    const first = await get('/Items/A-100');
    const second = await get('/Items/A-100');
    expect(first.isResultSuccess).toBe(true);
    expect(second).toEqual(first);
    expect(sent).toEqual(['GET /api/v1/articles/A-100']);
  });
});
