/**
 * An Odoo-style ERP over JSON-RPC for the corpus: everything is `POST /jsonrpc`; `common.login` gives the
 * uid, `object.execute_kw` reads with search_read (a domain of `=`, `!=`, `in` terms, fields, offset and
 * limit) and writes with the customer module's `wms_putwall_place` on sale.order. An error is answered
 * inside a 200 as Odoo does; an empty field is `false`, a many2one `[id, "name"]`.
 */
import { corpusData, type CorpusData } from '../data';
import { json, listen, type StandIn } from './listen';

export const ODOO_KEY = 'corpus-odoo-key';
const UID = 7;

type OdooRecord = Record<string, unknown> & { readonly id: number };

function models(data: CorpusData): Record<string, OdooRecord[]> {
  const productOf = new Map(data.products.map((product) => [product.id, product]));
  const orderOf = new Map(data.orders.map((order) => [order.id, order]));
  return {
    'sale.order': data.orders.map((o) => ({
      id: o.id, name: o.number, state: 'sale', partner_id: [o.id + 1, o.customer], warehouse_id: [1 + (o.warehouse.length % 3), o.warehouse],
      expected_date: o.due, commitment_date: o.promised ?? false, client_order_ref: o.reference ?? false, note: o.note ?? false,
      picking_type: o.kind, priority: o.priority === 1 ? '1' : '0',
    })),
    'sale.order.line': data.lines.map((l) => {
      const product = productOf.get(l.productId);
      return {
        id: l.id, order_id: [l.orderId, orderOf.get(l.orderId)?.number], product_id: [l.productId, `[${product?.code}] ${product?.name}`],
        name: l.text ?? false, product_uom_qty: l.quantity, product_uom: [1, product?.unit], sequence: l.sequence, state: l.cancelled ? 'cancel' : 'sale',
      };
    }),
    'product.product': data.products.map((p) => ({ id: p.id, default_code: p.code, name: p.name, description_sale: p.description ?? false, uom_name: p.unit })),
  };
}

function holds(record: OdooRecord, domain: readonly unknown[]): boolean {
  return domain.every((term) => {
    const [field, operator, value] = term as [string, string, unknown];
    const own = Array.isArray(record[field]) ? (record[field] as unknown[])[0] : record[field];
    if (operator === '=') return own === value;
    if (operator === '!=') return own !== value;
    if (operator === 'in') return (value as unknown[]).includes(own);
    throw new Error(`operator ${operator} is not supported`);
  });
}

const pick = (record: OdooRecord, fields: unknown): OdooRecord =>
  Array.isArray(fields) ? Object.fromEntries([['id', record.id], ...fields.map((field: string) => [field, record[field] ?? false])]) as OdooRecord : record;

export async function startOdooErp(orders: number): Promise<StandIn> {
  const records = models(corpusData(orders));
  const odooError = (name: string, message: string) => ({ code: 200, message: 'Odoo Server Error', data: { name, message } });
  return listen((method, url, _headers, body) => {
    if (method !== 'POST' || url.pathname !== '/jsonrpc') return json({ error: 'not found' }, 404);
    const { id = null, params } = JSON.parse(body) as { id?: unknown; params: { service: string; method: string; args: unknown[] } };
    if (params.service === 'common' && params.method === 'login') return json({ jsonrpc: '2.0', id, result: params.args[2] === ODOO_KEY ? UID : false });
    const [, uid, key, model, call, positional = [], kwargs = {}] = params.args as [string, number, string, string, string, unknown[], Record<string, unknown>];
    if (uid !== UID || key !== ODOO_KEY) return json({ jsonrpc: '2.0', id, error: odooError('odoo.exceptions.AccessDenied', 'Access Denied') });
    if (call === 'wms_putwall_place') {
      const [name] = positional as [string];
      if (!records['sale.order'].some((order) => order.name === name)) return json({ jsonrpc: '2.0', id, error: odooError('odoo.exceptions.MissingError', `Sale order ${name} does not exist or has been deleted.`) });
      return json({ jsonrpc: '2.0', id, result: true });
    }
    if (call !== 'search_read' || !records[model]) return json({ jsonrpc: '2.0', id, error: odooError('builtins.AttributeError', `The method '${model}.${call}' does not exist`) });
    const found = records[model].filter((record) => holds(record, (kwargs.domain ?? positional[0] ?? []) as unknown[]));
    const offset = Number(kwargs.offset ?? 0);
    const limit = kwargs.limit === undefined ? undefined : Number(kwargs.limit);
    return json({ jsonrpc: '2.0', id, result: found.slice(offset, limit === undefined ? undefined : offset + limit).map((record) => pick(record, kwargs.fields)) });
  });
}
