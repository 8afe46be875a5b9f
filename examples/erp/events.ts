/**
 * Inbound event endpoints: what the warehouse side reports back to the ERP.
 * Accepted events are stored in `state.events` (body exactly as received)
 * and answered with 201 `{ eventId }`; rejected ones are not stored.
 */
import type { Router } from '@koa/router';
import { recordEvent } from './data';
import { ErpError } from './errors';
import type { ErpEventType, ErpState } from './types';

type ErpRouter = Router;

/** Container codes the ERP accepts, e.g. `C-100`. */
export const CONTAINER_PATTERN = /^C-\d{3,}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireObject(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw new ErpError(400, 'BAD_REQUEST', 'Body must be a JSON object');
  return body;
}

/** Correction the ERP sends back when a pick confirmation asks for more than is available. */
export function pickCorrection(state: ErpState, body: Record<string, unknown>) {
  const article = body.article;
  const requested = body.quantity;
  if (typeof article !== 'string' || typeof requested !== 'number') return null;
  const available = state.availableStock.get(article);
  if (available === undefined || requested <= available) return null;
  return {
    headerText: `Short stock: ${article} reduced`,
    positions: [{ requestId: body.requestId ?? null, article, quantity: available, cancelled: false }],
  };
}

/** Validates a container assignment/release against the container -> order map and applies it. */
export function applyContainerAssignment(state: ErpState, body: Record<string, unknown>): void {
  const { docNo, container } = body;
  const release = body.release ?? false;
  if (typeof docNo !== 'string' || typeof container !== 'string' || typeof release !== 'boolean') {
    throw new ErpError(400, 'BAD_REQUEST', 'Expected { docNo: string, container: string, release?: boolean }');
  }
  if (!state.salesOrders.has(docNo)) throw new ErpError(404, 'ORDER_NOT_FOUND', `Sales order ${docNo} not found`);
  if (!CONTAINER_PATTERN.test(container)) {
    throw new ErpError(422, 'CONTAINER_INVALID', `Container code ${container} is invalid (expected C-000)`);
  }
  const holder = state.containers.get(container);
  if (release) {
    if (holder === undefined) throw new ErpError(404, 'CONTAINER_NOT_FOUND', `Container ${container} is not assigned`);
    if (holder !== docNo) {
      throw new ErpError(409, 'CONTAINER_OCCUPIED', `Container ${container} holds ${holder}, not ${docNo}`);
    }
    state.containers.delete(container);
    return;
  }
  for (const [code, assigned] of state.containers) {
    if (assigned === docNo && code !== container) {
      throw new ErpError(409, 'ORDER_ALREADY_ASSIGNED', `Sales order ${docNo} is already in container ${code}`);
    }
  }
  if (holder !== undefined && holder !== docNo) {
    throw new ErpError(409, 'CONTAINER_OCCUPIED', `Container ${container} already holds ${holder}`);
  }
  state.containers.set(container, docNo);
}

/** Plain event endpoints: path -> event type (and the JSON shape the body must have). */
const SIMPLE_EVENTS: { path: string; type: ErpEventType; array?: boolean }[] = [
  { path: '/putwall/placements', type: 'putwall-placement' },
  { path: '/putwall/cancellations', type: 'putwall-cancellation' },
  { path: '/position-cancellations', type: 'position-cancellation' },
  { path: '/cart-relocations', type: 'cart-relocation', array: true },
  { path: '/order-status', type: 'order-status' },
];

export function registerEventRoutes(router: ErpRouter, state: ErpState): void {
  for (const { path, type, array } of SIMPLE_EVENTS) {
    router.post(path, (ctx) => {
      const body: unknown = ctx.request.body;
      if (array && !Array.isArray(body)) throw new ErpError(400, 'BAD_REQUEST', 'Body must be a JSON array');
      if (!array) requireObject(body);
      ctx.status = 201;
      ctx.body = { eventId: recordEvent(state, type, body).id };
    });
  }

  router.post('/pick-confirmations', (ctx) => {
    const body = requireObject(ctx.request.body);
    const correction = pickCorrection(state, body);
    ctx.status = 201;
    ctx.body = { eventId: recordEvent(state, 'pick-confirmation', body).id, correction };
  });

  router.post('/container-assignments', (ctx) => {
    const body = requireObject(ctx.request.body);
    applyContainerAssignment(state, body);
    ctx.status = 201;
    ctx.body = { eventId: recordEvent(state, 'container-assignment', body).id };
  });

  router.get('/events', (ctx) => {
    const type = ctx.query.type;
    const wanted = typeof type === 'string' ? type : undefined;
    ctx.body = { events: state.events.filter((e) => wanted === undefined || e.type === wanted) };
  });

  router.delete('/events', (ctx) => {
    state.events.length = 0;
    ctx.status = 204;
  });
}
