/**
 * A REST ERP with pages for the corpus, NetSuite's record API in spirit: `GET /api/v2/salesorders`
 * (offset and limit, `hasMore`; `?tranId=` finds one), `GET /api/v2/salesorderlines` (the same paging,
 * `?orderId=` for one order's), `GET /api/v2/items`, and `POST /api/v2/putwall-placements` (201, or 400
 * with `o:errorDetails` for an order it does not know). Ids are texts; references are `{ id, refName }`.
 */
import { corpusData, type CorpusData } from '../data';
import { json, listen, type StandIn } from './listen';

function records(data: CorpusData) {
  return {
    orders: data.orders.map((o, n) => ({
      id: String(o.id),
      tranId: o.number,
      entity: { id: String(o.id + 1), refName: o.customer },
      location: { id: String(1 + (n % 3)), refName: o.warehouse },
      // Local times with their offset, as the ERP's user zone writes them.
      shipDate: `${o.due.replace(' ', 'T')}+01:00`,
      ...(o.promised ? { custbody_requested: o.promised.slice(0, 10) } : {}),
      memo: o.note,
      otherRefNum: o.reference,
      priority: o.priority === 1 ? 'HIGH' : 'NORMAL',
      type: o.kind === 'incoming' ? 'RtnAuth' : 'SalesOrd',
      custom: { route: `R${(n % 6) + 1}`, dock: n % 2 === 0 ? 'north' : 'south' },
    })),
    lines: data.lines.map((l) => ({
      id: String(l.id), order: { id: String(l.orderId) }, item: { id: String(l.productId) }, line: l.sequence, quantity: l.quantity, description: l.text, isClosed: l.cancelled,
    })),
    items: data.products.map((p) => ({
      id: String(p.id), itemId: p.code, displayName: p.name, salesDescription: p.description, unitsType: { Units: 'Each', kg: 'Kilogram', m: 'Meter', L: 'Liter', Box: 'Each' }[p.unit],
    })),
  };
}

function page<T>(list: readonly T[], url: URL) {
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const limit = Number(url.searchParams.get('limit') ?? 1000);
  const items = list.slice(offset, offset + limit);
  return json({ links: [], count: items.length, hasMore: offset + limit < list.length, offset, totalResults: list.length, items });
}

export async function startRestErp(orders: number): Promise<StandIn> {
  const { orders: salesOrders, lines, items } = records(corpusData(orders));
  return listen((method, url, _headers, body) => {
    if (method === 'GET' && url.pathname === '/api/v2/salesorders') {
      const tranId = url.searchParams.get('tranId');
      return page(tranId === null ? salesOrders : salesOrders.filter((order) => order.tranId === tranId), url);
    }
    if (method === 'GET' && url.pathname === '/api/v2/salesorderlines') {
      const orderId = url.searchParams.get('orderId');
      return page(orderId === null ? lines : lines.filter((line) => line.order.id === orderId), url);
    }
    if (method === 'GET' && url.pathname === '/api/v2/items') return page(items, url);
    if (method === 'POST' && url.pathname === '/api/v2/putwall-placements') {
      const placement = JSON.parse(body) as { tranId?: string };
      if (!salesOrders.some((order) => order.tranId === placement.tranId)) {
        return json({ type: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5.1', title: 'Bad Request', status: 400, 'o:errorDetails': [{ detail: `Invalid reference key ${placement.tranId} for sales order.`, 'o:errorCode': 'INVALID_KEY_OR_REF' }] }, 400);
      }
      return json({ id: `PW-${placement.tranId}` }, 201);
    }
    return json({ title: 'Not Found', status: 404 }, 404);
  });
}
