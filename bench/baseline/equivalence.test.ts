import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createHttpApp, loadMapping, type Engine } from '../../engine';
import { startErp, type RunningErp } from '../../examples/erp';
import { orderCsv } from '../lib/order-csv';
import { ALL_ORDERS, CODE_LOOKUP, CONFIRM_STEP, EXPORT_COLUMNS, exportValuesRequest, PUT_WALL_EVENT, type BenchRequest } from '../requests';
import { exampleEnv } from '../../examples/example-env';
import { createBaselineApp, type BaselineApp } from './app';

// The baseline is only a fair reference if it answers exactly what the engine answers with the example
// mapping: same envelopes, byte for byte, for every request the benchmarks send (and the lookups' misses).

const EXAMPLE_MAPPING = path.join(__dirname, '..', '..', 'mappings', 'example.yaml');

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function send(base: string, request: BenchRequest): Promise<string> {
  const response = await fetch(base + request.path, {
    method: request.method,
    headers: request.body === undefined ? {} : { 'content-type': 'application/json' },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('the hand-written baseline answers like the engine with mappings/example.yaml', () => {
  let erp: RunningErp;
  let engine: Engine;
  let baseline: BaselineApp;
  const servers: http.Server[] = [];
  let engineUrl = '';
  let baselineUrl = '';

  beforeAll(async () => {
    erp = await startErp({ port: 0, extraOrders: 500 });
    engine = createEngine({ mappings: [loadMapping(EXAMPLE_MAPPING, { env: exampleEnv(erp.url) }).mapping], outbox: 'inline' });
    baseline = createBaselineApp({ erpUrl: erp.url });
    servers.push(http.createServer(createHttpApp(engine).callback()), http.createServer(baseline.koa.callback()));
    engineUrl = await listen(servers[0]);
    baselineUrl = await listen(servers[1]);
  });

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await engine.close();
    baseline.close();
    await erp.close();
  });

  const withCorrection: BenchRequest = { ...CONFIRM_STEP, body: { ...(CONFIRM_STEP.body as object), itemNumber: 'A-300', requestAmountInBaseUnitOfMeasure: 5 } };
  const orderFile: BenchRequest = { method: 'POST', path: '/WorkOrders/File', body: { fileType: 1, fileContent: Buffer.from(orderCsv(60), 'utf8').toString('base64') } };
  const cases: [string, BenchRequest][] = [
    ['POST /WorkOrders/File, the benchmark CSV', orderFile],
    ['GET /WorkOrders (508 orders)', ALL_ORDERS],
    ['GET /WorkOrders/Code', CODE_LOOKUP],
    ['GET /WorkOrders/Code, order without wish date and with a return line', { method: 'GET', path: '/WorkOrders/Code?Code=SO-1004' }],
    ['GET /WorkOrders/Code, blocked order', { method: 'GET', path: '/WorkOrders/Code?code=SO-1005' }],
    ['GET /WorkOrders/Code, unknown order', { method: 'GET', path: '/WorkOrders/Code?Code=SO-404' }],
    ['POST ConfirmWorkOrderStep', CONFIRM_STEP],
    ['POST ConfirmWorkOrderStep with a stock correction', withCorrection],
    ['POST /WorkOrders/ForPutWall', PUT_WALL_EVENT],
    ['GET /WorkOrders/WorkOrderExportColumns', EXPORT_COLUMNS],
    ['POST WorkOrderExportValues', exportValuesRequest(50)],
    // Long enough for the engine's slices: the export transform 256 elements at a time, the answer written in pieces.
    ['POST WorkOrderExportValues, 1,500 orders', exportValuesRequest(1500)],
    ['POST /WorkOrders/File, 6,000 lines (1,200 orders)', { ...orderFile, body: { fileType: 1, fileContent: Buffer.from(orderCsv(6000), 'utf8').toString('base64') } }],
    ['POST WorkOrderExportValues, null and empty externalData', { ...exportValuesRequest(0), body: [{ workOrderNumber: 'A', externalData: null }, { workOrderNumber: 'B', externalData: '{}' }] }],
  ];

  it.each(cases)('%s', async (_name, request) => {
    const [fromEngine, fromBaseline] = await Promise.all([send(engineUrl, request), send(baselineUrl, request)]);
    expect(JSON.parse(fromEngine).isResultSuccess !== undefined).toBe(true);
    expect(fromBaseline).toBe(fromEngine);
  });

  it('the benchmarked requests succeed (the comparison is not between two failures)', async () => {
    for (const request of [ALL_ORDERS, CODE_LOOKUP, CONFIRM_STEP, PUT_WALL_EVENT, EXPORT_COLUMNS, exportValuesRequest(3), orderFile]) {
      expect(JSON.parse(await send(engineUrl, request)).isResultSuccess).toBe(true);
    }
  });
});
