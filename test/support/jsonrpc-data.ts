/**
 * The records of the JSON-RPC stand-in (jsonrpc-erp.ts), shaped as Odoo 17 reads them: `false` for every
 * empty field, a many2one as `[id, "display name"]`, dates as "YYYY-MM-DD HH:MM:SS" in UTC.
 */
import { articleImage } from '../../examples/erp/png';

export type OdooValue = string | number | boolean | null | readonly unknown[] | Readonly<Record<string, unknown>>;
export type OdooRecord = Record<string, OdooValue> & { readonly id: number };
export type Models = Record<string, OdooRecord[]>;

const PRODUCTS: [number, string, string, number][] = [
  [1, 'A-100', 'Hex bolt M8', 0.05],
  [2, 'A-200', 'Washer 8 mm', 0.01],
  [3, 'A-300', 'Cable tie 200 mm', 0.002],
  [4, 'A-400', 'Safety gloves', 0.1],
];

/** Orders 1-3 are fixed; `extraOrders` more follow (SO-2001, ...), each with one line, for paging. */
export function seedModels(extraOrders = 0): Models {
  const orders: OdooRecord[] = [
    { id: 1, name: 'SO-1001', state: 'sale', expected_date: '2026-12-15 08:00:00', commitment_date: '2026-12-14 16:00:00', client_order_ref: 'PO-77', note: 'Workshop supplies', warehouse_id: [1, 'WH'], picking_type: 'outgoing' },
    // No promised date and no customer reference: Odoo answers false for both.
    { id: 2, name: 'SO-1002', state: 'sale', expected_date: '2026-12-16 08:00:00', commitment_date: false, client_order_ref: false, note: false, warehouse_id: [1, 'WH'], picking_type: 'outgoing' },
    { id: 3, name: 'SO-1003', state: 'sale', expected_date: '2026-12-17 08:00:00', commitment_date: false, client_order_ref: 'PO-79', note: 'Returns', warehouse_id: [1, 'WH'], picking_type: 'incoming' },
  ];
  const lines: OdooRecord[] = [
    { id: 11, order_id: [1, 'SO-1001'], product_id: [1, '[A-100] Hex bolt M8'], name: 'Hex bolt M8', product_uom_qty: 12, product_uom: [1, 'Units'], sequence: 10 },
    { id: 12, order_id: [1, 'SO-1001'], product_id: [2, '[A-200] Washer 8 mm'], name: 'Washer 8 mm', product_uom_qty: 40, product_uom: [1, 'Units'], sequence: 20 },
    { id: 21, order_id: [2, 'SO-1002'], product_id: [3, '[A-300] Cable tie 200 mm'], name: false, product_uom_qty: 5, product_uom: [1, 'Units'], sequence: 10 },
    { id: 31, order_id: [3, 'SO-1003'], product_id: [4, '[A-400] Safety gloves'], name: 'Safety gloves', product_uom_qty: 2, product_uom: [2, 'kg'], sequence: 10 },
  ];
  for (let n = 1; n <= extraOrders; n += 1) {
    const id = 100 + n;
    orders.push({ id, name: `SO-${2000 + n}`, state: 'sale', expected_date: '2026-12-20 08:00:00', commitment_date: false, client_order_ref: false, note: false, warehouse_id: [1, 'WH'], picking_type: 'outgoing' });
    lines.push({ id: 1000 + n, order_id: [id, `SO-${2000 + n}`], product_id: [1, '[A-100] Hex bolt M8'], name: 'Hex bolt M8', product_uom_qty: n, product_uom: [1, 'Units'], sequence: 10 });
  }
  const products: OdooRecord[] = PRODUCTS.map(([id, code, name, weight]) => ({
    id, default_code: code, name, weight, uom_name: 'Units',
    description_sale: code === 'A-100' ? 'Zinc plated hex bolt, M8 x 40' : false,
    volume: code === 'A-100' ? 0.0001 : false,
    // A-400 has no image: Odoo answers false.
    image_1920: code === 'A-400' ? false : articleImage(code).toString('base64'),
  }));
  return {
    'sale.order': orders,
    'sale.order.line': lines,
    'product.product': products,
    'stock.quant': [
      { id: 1, product_id: [1, '[A-100] Hex bolt M8'], location_id: [8, 'WH/Stock/A-01'], quantity: 500 },
      { id: 2, product_id: [3, '[A-300] Cable tie 200 mm'], location_id: [9, 'WH/Stock/B-07'], quantity: 3 },
    ],
    'stock.picking.batch': [{ id: 1, name: 'PW-01', x_order_ids: [1, 2] }],
  };
}

/** An Odoo domain of `[field, operator, value]` terms, all of which must hold (=, !=, in, not in, >, <). */
export function matches(record: OdooRecord, domain: readonly unknown[]): boolean {
  return domain.every((term) => {
    if (!Array.isArray(term)) return true; // '&' and other prefix operators: every term is ANDed here
    const [field, operator, value] = term as [string, string, unknown];
    const raw = record[field];
    const own = Array.isArray(raw) ? raw[0] : raw; // a many2one compares by id
    switch (operator) {
      case '=': return own === value;
      case '!=': return own !== value;
      case 'in': return Array.isArray(value) && value.includes(own);
      case 'not in': return Array.isArray(value) && !value.includes(own);
      case '>': return typeof own === 'number' && typeof value === 'number' && own > value;
      case '<': return typeof own === 'number' && typeof value === 'number' && own < value;
      default: throw new Error(`Invalid domain operator ${JSON.stringify(operator)}`);
    }
  });
}

/** The record with only the fields asked for (all without a list), and always its id. */
export function pick(record: OdooRecord, fields: unknown): OdooRecord {
  if (!Array.isArray(fields) || fields.length === 0) return { ...record };
  return Object.fromEntries([['id', record.id], ...fields.filter((field): field is string => typeof field === 'string' && field in record).map((field) => [field, record[field]])]) as OdooRecord;
}
