import type { XmlObject, XmlValue } from './soap-erp-xml';
import { NavFault, notFound, type NavItem, type NavOrder, type NavXml } from './nav-records';

/**
 * The stand-in's codeunit WarehouseEvents: the warehouse's events as NAV codeunit functions, each
 * answering `<Name_Result><return_value>...</return_value></Name_Result>`. An unknown order or item is a
 * NavNCLRecordNotFoundException fault, as a codeunit's GET would raise it.
 */

export const CODEUNIT_NS = 'urn:microsoft-dynamics-schemas/codeunit/WarehouseEvents';

/** One event the codeunit took: the function and the parameters as parsed. */
export interface CodeunitEvent {
  readonly action: string;
  readonly parameters: XmlObject;
}

export interface NavState {
  readonly orders: Map<string, NavOrder>;
  readonly items: Map<string, NavItem>;
  readonly events: CodeunitEvent[];
}

const text = (value: XmlValue | undefined): string => (typeof value === 'string' ? value : '');
const listOf = (value: XmlValue | undefined): XmlObject[] =>
  (value === undefined ? [] : Array.isArray(value) ? value : [value]).filter((v): v is XmlObject => typeof v === 'object' && v !== null && !Array.isArray(v));

function orderOf(state: NavState, no: string): NavOrder {
  const order = state.orders.get(no);
  if (!order) throw notFound('Sales Header', `Document Type='Order',No.='${no}'`);
  return order;
}

function itemOf(state: NavState, no: string): NavItem {
  const item = state.items.get(no);
  if (!item) throw notFound('Item', `No.='${no}'`);
  return item;
}

/** A pick confirmed above what the warehouse holds is corrected down to it. */
function confirmPick(state: NavState, p: XmlObject, x: NavXml): string {
  const order = orderOf(state, text(p.orderNo));
  const item = itemOf(state, text(p.itemNo));
  const confirmed = Number(text(p.confirmed));
  if (confirmed <= item.available) return '';
  return x.el('Correction', x.text('Description', `Short stock of ${item.no} for ${order.no}`) +
    x.el('Line', '', { requestId: text(p.requestId), item: item.no, quantity: String(item.available), cancelled: 'false' }));
}

/** Shortages: lines of the orders above the item's stock; bin stock: where each item of the orders lies. */
function completionReport(state: NavState, p: XmlObject, x: NavXml): string {
  const orders = text(p.orderNos).split(',').filter((no) => no !== '').map((no) => orderOf(state, no));
  const lines = orders.flatMap((order) => order.lines.filter((line) => !line.cancelled));
  const itemNos = [...new Set(lines.map((line) => line.itemNo))];
  const shortages = itemNos.flatMap((no) => {
    const wanted = lines.filter((line) => line.itemNo === no).reduce((sum, line) => sum + line.quantity, 0);
    const missing = wanted - itemOf(state, no).available;
    return missing > 0 ? [x.el('Shortage', '', { item: no, quantity: String(missing) })] : [];
  });
  const bins = itemNos.map((no) => itemOf(state, no)).map((item) => x.el('BinStock', '', { item: item.no, bin: item.bin, quantity: String(item.available) }));
  return [...shortages, ...bins].join('');
}

function returnValue(state: NavState, action: string, p: XmlObject, x: NavXml): string {
  switch (action) {
    case 'PutWallPlacement':
    case 'CancelPutWallItem':
    case 'ReportStatus':
      orderOf(state, text(p.orderNo));
      return x.text('EntryNo', state.events.length + 1);
    case 'CancelLine': {
      const order = orderOf(state, text(p.orderNo));
      const line = order.lines.find((l) => String(l.lineNo) === text(p.lineNo));
      if (!line) throw notFound('Sales Line', `Document No.='${order.no}',Line No.='${text(p.lineNo)}'`);
      line.cancelled = true;
      order.version += 1;
      return x.text('EntryNo', state.events.length + 1);
    }
    case 'RelocateContainers':
      for (const relocation of listOf(p.Relocation)) orderOf(state, text(relocation['@orderNo']));
      return x.text('EntryNo', state.events.length + 1);
    case 'ConfirmPick':
      return confirmPick(state, p, x);
    case 'CompletionReport':
      return completionReport(state, p, x);
    case 'GetItemPicture':
      return x.text('Picture', itemOf(state, text(p.itemNo)).picture ?? '');
    default:
      throw new NavFault('NavCSideException', `The codeunit WarehouseEvents has no function ${action}.`);
  }
}

export function codeunit(state: NavState, action: string, parameters: XmlObject, x: NavXml): string {
  const value = returnValue(state, action, parameters, x);
  state.events.push({ action, parameters });
  return x.root(`${action}_Result`, CODEUNIT_NS, x.el('return_value', value));
}
