/**
 * The ERP's side of push endpoints: business actions that change the ERP's data and push the change to
 * the adapter engine at once, as a real ERP's webhooks do: a new sales order, a cancelled order line, a
 * stock change. Each push is signed as the example mapping asks (HMAC-SHA256 of "<unix time>.<body>" in
 * X-Signature, the time in X-Timestamp) and is kept with the engine's answer in `state.pushes`
 * (GET /pushes). Without a push target the actions still happen and nothing is pushed.
 */
import { createHmac } from 'node:crypto';
import type { Router } from '@koa/router';
import { ErpError } from './errors';
import type { ErpPosition, ErpPush, ErpSalesOrder, ErpState, UnitCode } from './types';
import { UNIT_CODES } from './types';

export interface PushTarget {
  /**
   * Where a push of this name goes, asked at each push: e.g. http://localhost:8080/push/NewOrder, or
   * under a mapping's prefix when the engine serves several (/<mapping>/push/NewOrder); none: nobody
   * takes it, and it is kept as not sent.
   */
  url(push: string): string | undefined;
  /** The signing secret shared with the mapping (ERP_PUSH_SECRET). */
  readonly secret: string;
}

/** Every push to `<base>/<name>`, e.g. base http://localhost:8080/push: one engine that serves one mapping at its root. */
export function pushesUnder(base: string): PushTarget['url'] {
  return (push) => `${base}/${push}`;
}

export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

async function send(target: PushTarget | undefined, state: ErpState, push: string, body: unknown): Promise<ErpPush> {
  const record: ErpPush = { id: state.pushes.length + 1, push, sentAt: new Date().toISOString(), body, answer: { error: 'no push target: start the ERP with ERP_PUSH_URL and ERP_PUSH_SECRET' } };
  state.pushes.push(record);
  const url = target?.url(push);
  if (!target || !url) {
    if (target) record.answer = { error: `no mapping served by the engine has the push endpoint ${push}` };
    return record;
  }
  const text = JSON.stringify(body);
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-timestamp': String(timestamp), 'x-signature': signature(target.secret, timestamp, text) },
      body: text,
      signal: AbortSignal.timeout(10_000),
    });
    const answer = await response.text();
    let parsed: unknown = answer;
    try {
      parsed = JSON.parse(answer) as unknown;
    } catch {
      // Not JSON: kept as text.
    }
    record.answer = { status: response.status, body: parsed };
  } catch (error) {
    record.answer = { error: (error as Error).message };
  }
  return record;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `POST /sales-orders` body: `{ docNo, deliveryDate, headerText?, positions: [{ article, quantity, unit? }] }`. */
function newOrder(state: ErpState, body: unknown): ErpSalesOrder {
  if (!isRecord(body) || typeof body.docNo !== 'string' || typeof body.deliveryDate !== 'string' || !Array.isArray(body.positions) || body.positions.length === 0) {
    throw new ErpError(400, 'BAD_REQUEST', 'Expected { docNo, deliveryDate: "YYYY-MM-DD", positions: [{ article, quantity, unit? }] }');
  }
  if (state.salesOrders.has(body.docNo)) throw new ErpError(409, 'ORDER_EXISTS', `Sales order ${body.docNo} exists`);
  const docId = 90000 + state.salesOrders.size;
  const positions = body.positions.map((given: unknown, index): ErpPosition => {
    const line = isRecord(given) ? given : {};
    const article = typeof line.article === 'string' ? state.articles.get(line.article) : undefined;
    if (!article || typeof line.quantity !== 'number' || line.quantity <= 0) throw new ErpError(400, 'BAD_REQUEST', `positions[${index}] needs a known article and a quantity above 0`);
    const unit = UNIT_CODES.includes(line.unit as UnitCode) ? (line.unit as UnitCode) : article.baseUnit;
    const posNo = (index + 1) * 10;
    return {
      posNo, posId: `${docId}-${posNo}`, article: { no: article.articleNo, text: article.text, longText: article.longText, lang: article.lang, id: article.articleId },
      quantity: line.quantity, unit, lot: null, direction: 'OUT', bin: null, extra: {},
    };
  });
  const order: ErpSalesOrder = {
    docNo: body.docNo, docId, headerText: typeof body.headerText === 'string' ? body.headerText : `Order ${body.docNo}`, deliveryDate: body.deliveryDate,
    wishDate: null, orderKind: 'STANDARD', warehouse: 'WH-MAIN', shipment: null, scanCode: null, state: 'RELEASED', blockReason: null, batch: null, custom: {}, positions,
  };
  state.salesOrders.set(order.docNo, order);
  return order;
}

export function registerPushRoutes(router: Router, state: ErpState, target: PushTarget | undefined): void {
  router.post('/sales-orders', async (ctx) => {
    const order = newOrder(state, ctx.request.body);
    ctx.status = 201;
    ctx.body = { docNo: order.docNo, push: await send(target, state, 'NewOrder', order) };
  });

  router.post('/sales-orders/:docNo/positions/:posNo/cancellation', async (ctx) => {
    const order = state.salesOrders.get(ctx.params.docNo);
    if (!order) throw new ErpError(404, 'NOT_FOUND', `Sales order ${ctx.params.docNo} not found`);
    const index = order.positions.findIndex((position) => String(position.posNo) === ctx.params.posNo);
    if (index < 0) throw new ErpError(404, 'NOT_FOUND', `Sales order ${order.docNo} has no position ${ctx.params.posNo}`);
    const [position] = order.positions.splice(index, 1);
    ctx.status = 201;
    ctx.body = { docNo: order.docNo, push: await send(target, state, 'CancelOrderLine', { docNo: order.docNo, posNo: position.posNo, posId: position.posId, article: position.article.no, cancelledAt: new Date().toISOString() }) };
  });

  router.post('/articles/:articleNo/stock', async (ctx) => {
    const article = state.articles.get(ctx.params.articleNo);
    if (!article) throw new ErpError(404, 'NOT_FOUND', `Article ${ctx.params.articleNo} not found`);
    const body: unknown = ctx.request.body;
    if (!isRecord(body) || typeof body.available !== 'number' || !Number.isInteger(body.available) || body.available < 0) throw new ErpError(400, 'BAD_REQUEST', 'Expected { available: <whole number> }');
    state.availableStock.set(article.articleNo, body.available);
    // Each change has its own number: the engine forwards a resent change once, and two changes in order.
    const changeNo = state.pushes.filter((push) => push.push === 'StockChange').length + 1;
    ctx.status = 201;
    ctx.body = { articleNo: article.articleNo, push: await send(target, state, 'StockChange', { changeNo, article: article.articleNo, available: body.available, unit: article.baseUnit, changedAt: new Date().toISOString() }) };
  });

  router.get('/pushes', (ctx) => {
    ctx.body = { pushes: state.pushes };
  });
}
