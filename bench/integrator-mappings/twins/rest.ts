/**
 * What a developer would write instead of rest-orders.yaml: the same REST calls page by page, the same
 * answer. Every choice below mirrors one of the mapping's expressions (noted where JSONata's rules decide it).
 */
import { envelope, Refused, REQUEST_TYPE, RESULTS, routeTwin, UNIT_OF_MEASURE, type Transport } from './transport';

interface Ref { id: string; refName?: string }
interface RestOrder { id: string; tranId: string; entity: Ref; location: Ref; shipDate: string; custbody_requested?: string; memo: string | null; otherRefNum: string | null; priority: string; type: string; custom: Record<string, string> }
interface RestLine { id: string; order: Ref; item: Ref; line: number; quantity: number; description: string | null; isClosed: boolean }
interface RestItem { id: string; itemId: string; displayName: string; salesDescription: string | null; unitsType: string }
interface Page<T> { items: T[]; hasMore: boolean; totalResults: number }

const UNITS: Readonly<Record<string, string>> = { Each: 'Piece', Kilogram: 'Kilogram', Meter: 'Meter', Liter: 'Liter' };

/** $isoDateTime: the instant in UTC, whole seconds. */
const iso = (text: string) => new Date(text).toISOString().replace(/\.\d{3}Z$/, 'Z');

function unitOf(item: RestItem): number {
  const unit = UNITS[item.unitsType];
  if (!unit) throw new Error(`Item ${item.itemId}: no unit for ${item.unitsType}`);
  return UNIT_OF_MEASURE[unit];
}

function request(line: RestLine, order: RestOrder, items: ReadonlyMap<string, RestItem>) {
  const item = items.get(line.item.id);
  if (!item) throw new Error(`Order ${order.tranId}: item ${line.item.id} not found`);
  return {
    itemNumber: item.itemId,
    itemName: item.displayName,
    itemDescription: item.salesDescription,
    requestedAmount: line.quantity,
    unitOfMeasure: unitOf(item),
    lotNumber: /LOT-[A-Z]\d+/.exec(String(line.description))?.[0],
    requestExternalIdentifier: `${order.tranId}/${String(line.line).padStart(4, '0')}`,
    order: line.line,
    requestType: order.type === 'RtnAuth' ? REQUEST_TYPE.PlaceItem : REQUEST_TYPE.PickItem,
  };
}

function workOrder(order: RestOrder, lines: readonly RestLine[], items: ReadonlyMap<string, RestItem>) {
  const open = lines.filter((line) => line.order.id === order.id && line.isClosed === false).sort((a, b) => a.line - b.line);
  // JSONata's grouping: one line's quantity, or the list of them when lines share a number.
  const byLine: Record<string, number | number[]> = {};
  for (const line of open) {
    const key = String(line.line);
    const known = byLine[key];
    byLine[key] = known === undefined ? line.quantity : Array.isArray(known) ? [...known, line.quantity] : [known, line.quantity];
  }
  const tranId = order.tranId;
  return {
    number: tranId,
    externalIdentifier: order.id,
    description: order.memo ? order.memo : `Order ${tranId} for ${order.entity.refName}`,
    dueDate: iso(order.shipDate),
    customerRequiredDeliveryDate: order.custbody_requested === undefined ? undefined : `${order.custbody_requested}T00:00:00Z`,
    workOrderTypeName: order.priority === 'HIGH' ? 'Express' : null,
    designatedStorageName: order.location.refName,
    deliveryNumber: order.otherRefNum,
    alternativeStartNumber: tranId.includes('-') ? tranId.slice(tranId.indexOf('-') + 1) : tranId,
    externalData: JSON.stringify({
      custom: Object.entries(order.custom).map(([key, value]) => `${key}=${value}`).join(';'),
      quantity: open.length === 0 ? undefined : open.reduce((sum, line) => sum + line.quantity, 0),
      lines: byLine,
    }),
    requests: open.map((line) => request(line, order, items)),
  };
}

export function restTwin(transport: Transport) {
  /** `name`: the mapping's name of the call, which a refusal names. */
  const get = async <T>(name: string, path: string): Promise<T> => {
    const answer = await transport({ method: 'GET', path, headers: { accept: 'application/json' } });
    if (answer.status >= 400) {
      const body = answer.body as { title?: string; 'o:errorDetails'?: { detail: string }[] };
      throw new Refused(name, body['o:errorDetails'] ? body['o:errorDetails'][0].detail : (body.title ?? ''));
    }
    return answer.body as T;
  };
  const all = async <T>(name: string, path: string, size: number): Promise<T[]> => {
    const items: T[] = [];
    for (let offset = 0; ; offset += size) {
      const page = await get<Page<T>>(name, `${path}?offset=${offset}&limit=${size}`);
      items.push(...page.items);
      if (!page.hasMore) return items;
    }
  };
  const itemTable = async () => new Map((await get<Page<RestItem>>('items', '/api/v2/items?limit=1000')).items.map((item) => [item.id, item]));

  async function list(): Promise<string> {
    const orders = await all<RestOrder>('orders', '/api/v2/salesorders', 20);
    const lines = await all<RestLine>('lines', '/api/v2/salesorderlines', 100);
    const items = await itemTable();
    // ^(>priority, shipDate): HIGH before NORMAL, then by the ship date's text; a stable sort.
    const sorted = [...orders].sort((a, b) => (a.priority !== b.priority ? (a.priority > b.priority ? -1 : 1) : a.shipDate < b.shipDate ? -1 : a.shipDate > b.shipDate ? 1 : 0));
    return envelope(true, RESULTS.list.Succeed, sorted.map((order) => workOrder(order, lines, items)));
  }

  async function byCode(code: string): Promise<string> {
    const found = await get<Page<RestOrder>>('order', `/api/v2/salesorders?tranId=${encodeURIComponent(code)}`);
    if (found.totalResults === 0) return envelope(false, RESULTS.code.WorkOrderDoesNotExist, null, `Order ${code} is not known in the ERP`);
    const order = found.items[0];
    const lines = await get<Page<RestLine>>('lines', `/api/v2/salesorderlines?orderId=${encodeURIComponent(order.id)}`);
    return envelope(true, RESULTS.code.Succeed, workOrder(order, lines.items, await itemTable()));
  }

  async function putWall(event: { workOrderNumber: string; itemNumber: string; completedAmount: number; confirmedLocationName: string; userEmail: string; itemNames: { languageIsoCode: string; name: string }[] }): Promise<string> {
    const names = event.itemNames.length > 0 ? ` (${event.itemNames.map((name) => `${name.languageIsoCode}: ${name.name}`).join('; ')})` : '';
    const answer = await transport({
      method: 'POST', path: '/api/v2/putwall-placements', headers: { accept: 'application/json' },
      body: JSON.stringify({ tranId: event.workOrderNumber, item: { itemId: event.itemNumber }, quantity: event.completedAmount, bin: event.confirmedLocationName.trim().toUpperCase(), memo: `by ${event.userEmail}${names}` }),
    });
    if (answer.status >= 400) {
      const body = answer.body as { title?: string; 'o:errorDetails'?: { detail: string }[] };
      throw new Refused('placement', body['o:errorDetails'] ? body['o:errorDetails'][0].detail : (body.title ?? ''));
    }
    return envelope(true, RESULTS.putWall.Succeed);
  }

  return routeTwin({ list, byCode, putWall });
}
