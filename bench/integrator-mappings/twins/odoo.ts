/**
 * What a developer would write instead of odoo-orders.yaml: the same JSON-RPC calls, the same answer.
 * Every choice below mirrors one of the mapping's expressions (noted where JSONata's rules decide it).
 */
import { envelope, Refused, REQUEST_TYPE, RESULTS, routeTwin, UNIT_OF_MEASURE, type Transport } from './transport';

type Many2one = [number, string] | false;
interface OdooOrder { id: number; name: string; partner_id: Many2one; warehouse_id: Many2one; expected_date: string; commitment_date: string | false; client_order_ref: string | false; note: string | false; picking_type: string; priority: string }
interface OdooLine { id: number; order_id: Many2one; product_id: Many2one; name: string | false; product_uom_qty: number; product_uom: Many2one; sequence: number; state: string }
interface OdooProduct { id: number; default_code: string; name: string; description_sale: string | false; uom_name: string }
interface RpcAnswer<T> { result?: T; error?: { data: { message: string } } }

const LINE_FIELDS = ['order_id', 'product_id', 'name', 'product_uom_qty', 'product_uom', 'sequence', 'state'];
const ORDER_FIELDS = ['name', 'partner_id', 'warehouse_id', 'expected_date', 'commitment_date', 'client_order_ref', 'note', 'picking_type', 'priority'];
const PRODUCT_FIELDS = ['default_code', 'name', 'description_sale', 'uom_name'];
const UNITS: Readonly<Record<string, string>> = { Units: 'Piece', kg: 'Kilogram', m: 'Meter', L: 'Liter', Box: 'Piece' };
const PAGE = 25;

const iso = (odooDate: string | false): string | undefined => (odooDate === false ? undefined : `${odooDate.replace(' ', 'T')}Z`);
const lotOf = (text: string | false): string | undefined => (text === false ? undefined : /LOT-([A-Z][0-9]{4})/.exec(text)?.[1]);

function unit(name: string): number {
  const platform = UNITS[name];
  if (platform === undefined) throw new Error(`Odoo unit ${name} has no unit of measure in the platform`);
  return UNIT_OF_MEASURE[platform];
}

function workOrder(order: OdooOrder, lines: readonly OdooLine[], products: ReadonlyMap<number, OdooProduct>) {
  const mine = lines.filter((line) => line.order_id !== false && line.order_id[0] === order.id && line.state !== 'cancel').sort((a, b) => a.sequence - b.sequence);
  const byUnit: Record<string, number> = {};
  for (const line of mine) if (line.product_uom !== false) byUnit[line.product_uom[1]] = (byUnit[line.product_uom[1]] ?? 0) + line.product_uom_qty;
  const lots = mine.map((line) => lotOf(line.name)).filter((lot) => lot !== undefined);
  const customer = order.partner_id === false ? undefined : order.partner_id[1];
  // As JSONata gives them: $reduce of no lines is nothing (grouping them is {}); a list of one lot is the lot itself.
  const externalData: Record<string, unknown> = { customer, lines: mine.length, pieces: mine.length === 0 ? undefined : mine.reduce((sum, line) => sum + line.product_uom_qty, 0), byUnit };
  if (lots.length > 0) externalData.lots = lots.length === 1 ? lots[0] : lots;
  return {
    number: order.name,
    externalIdentifier: String(order.id),
    description: order.note !== false ? order.note : `${customer ?? ''} / ${order.name}`,
    dueDate: iso(order.expected_date),
    customerRequiredDeliveryDate: iso(order.commitment_date),
    workOrderTypeName: order.priority === '1' ? 'Urgent' : 'Normal',
    designatedStorageName: order.warehouse_id === false ? undefined : order.warehouse_id[1],
    deliveryNumber: order.client_order_ref === false ? undefined : order.client_order_ref,
    externalData: JSON.stringify(externalData),
    requests: mine.map((line) => {
      const product = line.product_id === false ? undefined : products.get(line.product_id[0]);
      if (!product) throw new Error(`Order ${order.name}: product ${line.product_id === false ? '' : line.product_id[1]} is not in Odoo`);
      return {
        itemNumber: product.default_code,
        itemName: product.name,
        itemDescription: product.description_sale === false ? undefined : product.description_sale,
        requestedAmount: line.product_uom_qty,
        unitOfMeasure: unit(line.product_uom === false ? '' : line.product_uom[1]),
        lotNumber: lotOf(line.name),
        requestExternalIdentifier: String(line.id),
        order: line.sequence,
        requestType: order.picking_type === 'incoming' ? REQUEST_TYPE.PlaceItem : REQUEST_TYPE.PickItem,
      };
    }),
  };
}

export function odooTwin(transport: Transport, key: string) {
  let uid: number | undefined;
  const post = async <T>(call: string, params: unknown): Promise<T> => {
    const answer = await transport({ method: 'POST', path: '/jsonrpc', body: JSON.stringify({ jsonrpc: '2.0', method: 'call', params }) });
    const rpc = answer.body as RpcAnswer<T>;
    if (answer.status !== 200) throw new Refused(call, `The ERP answered ${answer.status}`);
    if (rpc.error) throw new Refused(call, rpc.error.data.message);
    return rpc.result as T;
  };
  /** `name`: the mapping's name of the call, which a refusal names. */
  const call = async <T>(name: string, model: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}): Promise<T> => {
    uid ??= await post<number>('login', { service: 'common', method: 'login', args: ['wms', 'wms-bot', key] });
    return post<T>(name, { service: 'object', method: 'execute_kw', args: ['wms', uid, key, model, method, args, kwargs] });
  };
  const linesAndProducts = async (domain: unknown[]) => {
    const lines = await call<OdooLine[]>('lines', 'sale.order.line', 'search_read', [domain], { fields: LINE_FIELDS });
    const ids = [...new Set(lines.map((line) => (line.product_id === false ? undefined : line.product_id[0])).filter((id) => id !== undefined))];
    const products = await call<OdooProduct[]>('products', 'product.product', 'search_read', [[['id', 'in', ids]]], { fields: PRODUCT_FIELDS });
    return { lines, products: new Map(products.map((product) => [product.id, product])) };
  };

  async function list(): Promise<string> {
    const orders: OdooOrder[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await call<OdooOrder[]>('orders', 'sale.order', 'search_read', [[['state', '=', 'sale']]], { fields: ORDER_FIELDS, offset, limit: PAGE, order: 'id' });
      orders.push(...page);
      if (page.length < PAGE) break;
    }
    const { lines, products } = await linesAndProducts([['order_id', 'in', orders.map((order) => order.id)]]);
    const workOrders = orders.map((order) => workOrder(order, lines, products));
    // $sort with `$a.dueDate > $b.dueDate`: a stable sort, ascending.
    workOrders.sort((a, b) => ((a.dueDate ?? '') > (b.dueDate ?? '') ? 1 : (a.dueDate ?? '') < (b.dueDate ?? '') ? -1 : 0));
    return envelope(true, RESULTS.list.Succeed, workOrders);
  }

  async function byCode(code: string): Promise<string> {
    const [order] = await call<OdooOrder[]>('order', 'sale.order', 'search_read', [[['name', '=', code]]], { fields: ORDER_FIELDS, limit: 1 });
    if (!order) return envelope(false, RESULTS.code.WorkOrderDoesNotExist, null, `Order ${code} is not known in Odoo`);
    const { lines, products } = await linesAndProducts([['order_id', '=', order.id]]);
    return envelope(true, RESULTS.code.Succeed, workOrder(order, lines, products));
  }

  async function putWall(event: { workOrderNumber: string; itemNumber: string; completedAmount: number; confirmedLocationName: string; userEmail: string; itemNames: { name: string }[] }): Promise<string> {
    await call('placement', 'sale.order', 'wms_putwall_place', [event.workOrderNumber, {
      product: event.itemNumber,
      quantity: event.completedAmount,
      location: event.confirmedLocationName.trim().toUpperCase(),
      user: event.userEmail.includes('@') ? event.userEmail.slice(0, event.userEmail.indexOf('@')) : event.userEmail,
      names: event.itemNames.map((name) => name.name).join(', '),
    }]);
    return envelope(true, RESULTS.putWall.Succeed);
  }

  return routeTwin({ list, byCode, putWall });
}
