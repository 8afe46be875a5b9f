import Router from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { TransportError, type HttpClient, type OutboundResponse } from '../../engine/http/client';
import { createAxiosClient } from './axios-client';
import type { ErpSalesOrder } from '../../examples/erp/types';
import { workOrdersFromCsv } from './file-intake';
import { exportValues, stepAnswer, TransformError, workOrder, type ExportValuesElement } from './transforms';

/**
 * The hand-written adapter of the example customer, for the routes the benchmarks call: plain Koa
 * routes, axios for the ERP calls (axios-client.ts), the transforms as TypeScript functions. It is what a
 * customer would write instead of a mapping file, and it has no cache or shortcut the engine lacks.
 */

export interface BaselineApp {
  readonly koa: Koa;
  close(): void;
}

interface Envelope {
  isResultSuccess: boolean;
  result: number;
  validationStatus: { path: string; message: string }[] | null;
  externalMessage: string | null;
  data?: unknown;
}

function envelope(success: boolean, result: number, data?: unknown, externalMessage: string | null = null, problem?: string): Envelope {
  return { isResultSuccess: success, result, validationStatus: problem ? [{ path: '', message: problem }] : null, externalMessage, data };
}

/** Result numbers of one route, as the contract lists them. */
interface Results { success: number; clientFailed: number; callFailed: number; invalid: number }

class ErpFailure extends Error {
  constructor(readonly kind: 'client' | 'call', message: string) {
    super(message);
  }
}

export function createBaselineApp(options: { erpUrl: string; http?: HttpClient }): BaselineApp {
  const http = options.http ?? createAxiosClient();
  const base = options.erpUrl.replace(/\/+$/, '');
  const router = new Router();
  const parseBody = bodyParser({ enableTypes: ['json'], jsonLimit: '64mb', detectJSON: () => true });

  async function callErp(method: 'GET' | 'POST', path: string, body?: unknown): Promise<OutboundResponse> {
    let response: OutboundResponse;
    try {
      response = await http.send({
        callName: path, method, url: new URL(base + path), headers: { Accept: 'application/json' }, body,
        timeoutMs: 5000, responseType: 'json', maxResponseBytes: 50 * 1024 * 1024,
      });
    } catch (error) {
      if (error instanceof TransportError) throw new ErpFailure('client', error.message);
      throw error;
    }
    return response;
  }

  function requireOk(response: OutboundResponse, what: string): void {
    if (response.status >= 400) throw new ErpFailure('call', `the ERP answered ${response.status} to ${what}`);
    if (response.bodyError !== undefined) throw new ErpFailure('call', `${what}: ${response.bodyError}`);
  }

  /** The shared failure funnel: every answer is the route's envelope. */
  async function answer(ctx: Koa.Context, results: Results, withData: boolean, work: () => Promise<Envelope>): Promise<void> {
    try {
      ctx.body = await work();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const result = error instanceof ErpFailure ? (error.kind === 'client' ? results.clientFailed : results.callFailed) : results.invalid;
      ctx.body = envelope(false, result, withData ? null : undefined, null, message);
    }
    ctx.status = 200;
  }

  router.get('/WorkOrders', (ctx) => answer(ctx, { success: 2, clientFailed: 3, callFailed: 4, invalid: 1 }, true, async () => {
    // The ERP pages its order list; read every page, as the example mapping's `paginate` does.
    const orders: ErpSalesOrder[] = [];
    for (let page = 1; page <= 200; page += 1) {
      const response = await callErp('GET', `/sales-orders?page=${page}&pageSize=100`);
      requireOk(response, 'GET /sales-orders');
      const body = response.body as { salesOrders?: ErpSalesOrder[]; page: number; totalPages: number };
      orders.push(...(body.salesOrders ?? []));
      if (!(body.page < body.totalPages)) return envelope(true, 2, orders.map(workOrder));
    }
    throw new TransformError('the ERP has more than 200 pages of orders');
  }));

  router.get('/WorkOrders/Code', (ctx) => answer(ctx, { success: 1, clientFailed: 3, callFailed: 4, invalid: 0 }, true, async () => {
    const code = Object.entries(ctx.query).find(([name]) => name.toLowerCase() === 'code')?.[1];
    if (typeof code !== 'string' || code === '' || code === '.' || code === '..') throw new TransformError('the query parameter Code is missing or unusable');
    const response = await callErp('GET', `/sales-orders/${encodeURIComponent(code)}`);
    if (response.status === 404) return envelope(false, 2, null, `Order ${code} is not known in the ERP`);
    const order = response.body as ErpSalesOrder & { blockReason?: string | null };
    if (response.status < 400 && order?.state === 'BLOCKED') return envelope(false, 2, null, order.blockReason ?? null);
    requireOk(response, 'GET /sales-orders/{code}');
    return envelope(true, 1, workOrder(order));
  }));

  router.post('/WorkOrderProcessing/ConfirmWorkOrderStep', parseBody, (ctx) => answer(ctx, { success: 1, clientFailed: 3, callFailed: 2, invalid: 0 }, true, async () => {
    const input = ctx.request.body as Record<string, unknown> & { updateWorkOrderRequest?: { id?: number } | null };
    if (!input || typeof input !== 'object' || Array.isArray(input)) throw new TransformError('the body must be a step confirmation object');
    const requested = input.requestAmountInBaseUnitOfMeasure;
    const remaining = input.requestRemainingAmountInBaseUnitOfMeasure;
    const response = await callErp('POST', '/pick-confirmations', {
      docNo: input.workOrderNumber, requestId: input.requestId, article: input.itemNumber, quantity: requested,
      confirmed: typeof requested === 'number' && typeof remaining === 'number' ? requested - remaining : undefined,
    });
    requireOk(response, 'POST /pick-confirmations');
    return envelope(true, 1, stepAnswer((response.body as { correction?: null }).correction, input.updateWorkOrderRequest?.id));
  }));

  router.post('/WorkOrders/ForPutWall', parseBody, (ctx) => answer(ctx, { success: 1, clientFailed: 2, callFailed: 3, invalid: 5 }, false, async () => {
    const input = ctx.request.body as Record<string, unknown>;
    if (!input || typeof input !== 'object' || Array.isArray(input)) throw new TransformError('the body must be a placement object');
    const response = await callErp('POST', '/putwall/placements', {
      docNo: input.workOrderNumber, article: input.itemNumber, qty: input.completedAmount,
      bin: input.confirmedLocationName, user: input.userEmail,
    });
    requireOk(response, 'POST /putwall/placements');
    return envelope(true, 1);
  }));

  // The example customer's extra export columns: a fixed list, as the mapping's static answer.
  router.get('/WorkOrders/WorkOrderExportColumns', (ctx) => answer(ctx, { success: 2, clientFailed: 1, callFailed: 3, invalid: 3 }, true, async () => envelope(true, 2, [
    { key: 'customerName', header: 'Customer' },
    { key: 'route', header: 'Delivery route' },
    { key: 'priority', header: 'Priority' },
  ])));

  router.post('/WorkOrders/WorkOrderExportValues', parseBody, (ctx) => answer(ctx, { success: 2, clientFailed: 1, callFailed: 3, invalid: 3 }, true, async () => {
    const input = ctx.request.body as ExportValuesElement[];
    if (!Array.isArray(input)) throw new TransformError('the body must be a JSON array');
    return envelope(true, 2, exportValues(input));
  }));

  router.post('/WorkOrders/File', parseBody, (ctx) => answer(ctx, { success: 1, clientFailed: 4, callFailed: 5, invalid: 2 }, true, async () => {
    const input = ctx.request.body as { fileContent?: unknown; fileType?: unknown };
    if (typeof input?.fileContent !== 'string' || input.fileContent === '') throw new TransformError('fileContent (Base64) is required');
    if (input.fileType !== 1) return envelope(false, 3, null, null, 'only CSV files (fileType 1) are accepted');
    return envelope(true, 1, workOrdersFromCsv(input.fileContent));
  }));

  const koa = new Koa();
  koa.silent = true;
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  return { koa, close: () => http.close() };
}
