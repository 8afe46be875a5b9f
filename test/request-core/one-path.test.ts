import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnsweringClient } from '../../engine/testing/answers';
import { noMasking } from '../../engine/mapping/mask';
import { runCase } from '../../engine/testing/run-case';
import { findRoute } from '../../engine/contract/routes';
import { createHttpClient } from '../../engine/http/client';
import { startErp, type RunningErp } from '../../examples/erp/main';
import { loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';

/**
 * `dry-run` and `test` run a request through the same Engine.handle as the server, so for the same
 * request they give the same envelope. Each case is sent once over HTTP and once as the CLI runs it.
 */
let erp: RunningErp;
let server: RunningEngine;

beforeAll(async () => {
  erp = await startErp({ host: '127.0.0.1', port: 0 });
  server = await startEngine(loadExampleMapping(erp.url));
});
afterAll(async () => {
  await server.close();
  await erp.close();
});

const CASES: readonly { operation: string; input: unknown; http: [method: 'GET' | 'POST', path: string, body?: unknown] }[] = [
  // Query names match case-insensitively on the server; the CLI input is read the same way.
  { operation: 'GetWorkOrderByCode', input: { code: 'SO-1001' }, http: ['GET', '/WorkOrders/Code?code=SO-1001'] },
  { operation: 'GetWorkOrderByCode', input: { Code: 'SO-1001' }, http: ['GET', '/WorkOrders/Code?Code=SO-1001'] },
  { operation: 'GetWorkOrderByCode', input: { Code: 'NOPE' }, http: ['GET', '/WorkOrders/Code?Code=NOPE'] },
  { operation: 'GetWorkOrderByCode', input: {}, http: ['GET', '/WorkOrders/Code'] },
  { operation: 'GetItem', input: { number: 'A-100' }, http: ['GET', '/Items/A-100'] },
  { operation: 'GetItem', input: { number: 'a/b c' }, http: ['GET', '/Items/a%2Fb%20c'] },
  { operation: 'GetWorkOrders', input: undefined, http: ['GET', '/WorkOrders'] },
  { operation: 'GetExportColumns', input: undefined, http: ['GET', '/WorkOrders/WorkOrderExportColumns'] },
  { operation: 'GetReport', input: { workOrdersNumbers: 'not a list' }, http: ['POST', '/WorkOrders/GetReport', { workOrdersNumbers: 'not a list' }] },
];

describe('one request path', () => {
  it.each(CASES.map((c) => [`${c.operation} ${JSON.stringify(c.input)}`, c] as const))('%s: dry-run answers what the server answers', async (_name, testCase) => {
    const [method, path, body] = testCase.http;
    const served = await server.call(method, path, body);
    const live = createHttpClient();
    const client = createAnsweringClient({ live });
    try {
      const run = await runCase(server.mapping, findRoute(testCase.operation)!, testCase.input, client, noMasking);
      // Compared as the platform receives it: JSON (transforms build null-prototype objects in process).
      expect(JSON.parse(JSON.stringify(run.envelope))).toEqual(served);
    } finally {
      live.close();
    }
  });
});
