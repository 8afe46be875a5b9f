/**
 * Koa app of the example ERP (base path `/api/v1`). All state lives in the
 * `ErpState` of one app instance, so tests can run independent ERPs.
 */
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { createErpState } from './data';
import { ErpError, errorBody, toErrorResponse } from './errors';
import { registerEventRoutes } from './events';
import { registerPushRoutes, type PushTarget } from './pushes';
import { decodeUpload, parseArticleFile, parseSalesOrderFile } from './files';
import { articleImage } from './png';
import type { ErpSalesOrder, ErpState } from './types';

export const BASE_PATH = '/api/v1';

export interface ErpAppOptions {
  /** Number of generated synthetic released orders (SO-200001, ...) on top of the seed. */
  extraOrders?: number;
  /** Where the ERP pushes new orders, cancelled lines and stock changes (the engine's push endpoints); none: nothing is pushed. */
  push?: PushTarget;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;

function pageParameter(raw: string | string[] | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value < 1 || value > max) {
    throw new ErpError(400, 'BAD_REQUEST', `${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

function findOrder(state: ErpState, docNo: string): ErpSalesOrder {
  const order = state.salesOrders.get(docNo);
  if (!order) throw new ErpError(404, 'NOT_FOUND', `Sales order ${docNo} not found`);
  return order;
}

/** `POST /completion-reports`: open quantities become shortages, binned positions become bin stock. */
function completionReport(state: ErpState, body: unknown) {
  if (!isRecord(body)) throw new ErpError(400, 'BAD_REQUEST', 'Body must be a JSON object');
  const { orders, open = {} } = body;
  if (!Array.isArray(orders) || !orders.every((o): o is string => typeof o === 'string')) {
    throw new ErpError(400, 'BAD_REQUEST', 'orders must be an array of sales order numbers');
  }
  if (!isRecord(open) || !Object.values(open).every((q) => typeof q === 'number')) {
    throw new ErpError(400, 'BAD_REQUEST', 'open must map article numbers to quantities');
  }
  const found = orders.map((docNo) => findOrder(state, docNo));
  const shortages = Object.entries(open as Record<string, number>)
    .filter(([, qty]) => qty > 0)
    .map(([article, qty]) => ({ article, qty }));
  const binStock = found.flatMap((order) =>
    order.positions
      .filter((p) => p.bin !== null)
      .map((p) => ({ article: p.article.no, bin: p.bin as string, qty: p.quantity })));
  return { shortages, binStock };
}

function createRouter(state: ErpState, push: PushTarget | undefined) {
  const router = new Router({ prefix: BASE_PATH });

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  // Paginated like most real ERP list endpoints: ?page=1&pageSize=50 (defaults), at most 500 per page.
  router.get('/sales-orders', (ctx) => {
    const page = pageParameter(ctx.query.page, 'page', 1, Number.MAX_SAFE_INTEGER);
    const pageSize = pageParameter(ctx.query.pageSize, 'pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const released = [...state.salesOrders.values()].filter((o) => o.state === 'RELEASED');
    const totalPages = Math.max(1, Math.ceil(released.length / pageSize));
    const salesOrders = released.slice((page - 1) * pageSize, page * pageSize);
    const next = page < totalPages ? `${BASE_PATH}/sales-orders?page=${page + 1}&pageSize=${pageSize}` : null;
    ctx.body = { count: released.length, page, pageSize, totalPages, next, salesOrders };
  });

  router.get('/sales-orders/:docNo', (ctx) => {
    ctx.body = findOrder(state, ctx.params.docNo);
  });

  router.get('/putwall-batches/:batchCode', (ctx) => {
    const batchCode = ctx.params.batchCode;
    const salesOrders = [...state.salesOrders.values()].filter((o) => o.batch === batchCode);
    if (salesOrders.length === 0) throw new ErpError(404, 'NOT_FOUND', `Put wall batch ${batchCode} not found`);
    ctx.body = { batchCode, salesOrders };
  });

  router.post('/completion-reports', (ctx) => {
    ctx.body = completionReport(state, ctx.request.body);
  });

  router.post('/files/sales-orders', (ctx) => {
    const { format, text } = decodeUpload(ctx.request.body);
    ctx.body = { salesOrders: parseSalesOrderFile(format, text) };
  });

  router.post('/files/articles', (ctx) => {
    const { format, text } = decodeUpload(ctx.request.body);
    ctx.body = { articles: parseArticleFile(format, text) };
  });

  router.get('/articles/:articleNo', (ctx) => {
    const article = state.articles.get(ctx.params.articleNo);
    if (!article) throw new ErpError(404, 'NOT_FOUND', `Article ${ctx.params.articleNo} not found`);
    ctx.body = article;
  });

  router.get('/articles/:articleNo/image', (ctx) => {
    const { articleNo } = ctx.params;
    const article = state.articles.get(articleNo);
    if (!article) throw new ErpError(404, 'NOT_FOUND', `Article ${articleNo} not found`);
    if (!article.hasImage) throw new ErpError(404, 'NOT_FOUND', `Article ${articleNo} has no image`);
    ctx.type = 'image/png';
    ctx.body = articleImage(articleNo);
  });

  registerEventRoutes(router, state);
  registerPushRoutes(router, state, push);
  return router;
}

/** Builds a fresh ERP: its own Koa app and its own in-memory state. */
export function createErpApp(options: ErpAppOptions = {}): { app: Koa; state: ErpState } {
  const extraOrders = options.extraOrders ?? 0;
  if (!Number.isInteger(extraOrders) || extraOrders < 0 || extraOrders > 99999) {
    throw new RangeError(`extraOrders must be an integer 0..99999, got ${extraOrders}`);
  }
  const state = createErpState({ extraOrders });
  const router = createRouter(state, options.push);
  const app = new Koa();

  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const { status, body } = toErrorResponse(err);
      if (status === 500) ctx.app.emit('error', err, ctx);
      ctx.status = status;
      ctx.body = body;
    }
  });
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '10mb' }));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = errorBody('NOT_FOUND', `No route ${ctx.method} ${ctx.path}`);
  });

  return { app, state };
}
