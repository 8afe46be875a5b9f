import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseXml } from '../../engine/xml/read';
import type { XmlObject, XmlValue } from './soap-erp-xml';
import { escapeXml, makeOrder, navKey, NavFault, notFound, NavXml, seedItems, seedOrders, type AnswerStyle, type NavItem, type NavOrder } from './nav-records';
import { codeunit, CODEUNIT_NS, type CodeunitEvent } from './soap-erp-codeunit';

/**
 * A stand-in of Microsoft Dynamics NAV / Business Central SOAP web services, a real HTTP server on
 * 127.0.0.1: `POST <base>/Page/SalesOrder` (Read, ReadMultiple with filters and bookmark paging,
 * Update with the concurrency Key), `POST <base>/Page/Item` (Read) and `POST <base>/Codeunit/WarehouseEvents`
 * (the warehouse's events). Requests are parsed with engine/xml's parseXml; answers are XML text.
 * Errors are SOAP 1.1 faults with HTTP 500, as NAV sends them. Switches make it answer with another
 * prefix, with CDATA, with a DOCTYPE (billion laughs, XXE), or truncated.
 */

export const SALES_ORDER_NS = 'urn:microsoft-dynamics-schemas/page/salesorder';
export const ITEM_NS = 'urn:microsoft-dynamics-schemas/page/item';
export { CODEUNIT_NS };
const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

export interface SoapErpSwitches extends AnswerStyle {
  /** Answer every request with a document that has a DOCTYPE. */
  hostile?: 'billion-laughs' | 'xxe';
  /** Answer with only the first half of the document. */
  truncate?: boolean;
  /** Actions (Read, Update, PutWallPlacement, ...) this user may not run: a permission fault. */
  denied?: string[];
  /** Another NAV user saves each sales order just after it is read, so an Update with the Key read is stale. */
  concurrentWriter?: boolean;
}

export interface SoapRequestSeen {
  readonly path: string;
  readonly soapAction: string;
  readonly body: string;
}

export interface SoapErp {
  /** The web service base, e.g. http://127.0.0.1:41234/WS/CRONUS: the mapping's baseUrl. */
  readonly url: string;
  readonly orders: Map<string, NavOrder>;
  readonly items: Map<string, NavItem>;
  /** What the codeunit was told, in order. */
  readonly events: CodeunitEvent[];
  readonly requests: SoapRequestSeen[];
  readonly switches: SoapErpSwitches;
  /** Adds `count` released orders SO-9000... (for paging over many pages). */
  addOrders(count: number): void;
  close(): Promise<void>;
}

function faultXml(fault: NavFault): string {
  return envelope(`<s:Fault><faultcode xmlns:a="urn:microsoft-dynamics-schemas/error">a:Microsoft.Dynamics.Nav.Types.Exceptions.${fault.exception}</faultcode><faultstring xml:lang="en-US">${escapeXml(fault.message)}</faultstring><detail><string xmlns="http://schemas.microsoft.com/2003/10/Serialization/">${escapeXml(fault.message)}</string></detail></s:Fault>`);
}

const envelope = (inner: string) => `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="${SOAP_NS}"><s:Body>${inner}</s:Body></s:Envelope>`;

const HOSTILE = {
  'billion-laughs': `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><s:Envelope xmlns:s="${SOAP_NS}"><s:Body><Read_Result xmlns="${SALES_ORDER_NS}"><SalesOrder><No>&lol3;</No></SalesOrder></Read_Result></s:Body></s:Envelope>`,
  xxe: `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><s:Envelope xmlns:s="${SOAP_NS}"><s:Body><Read_Result xmlns="${SALES_ORDER_NS}"><SalesOrder><No>&xxe;</No></SalesOrder></Read_Result></s:Body></s:Envelope>`,
};

const text = (value: XmlValue | undefined): string => (typeof value === 'string' ? value : '');
const asObject = (value: XmlValue | undefined): XmlObject => (value && typeof value === 'object' && !Array.isArray(value) ? value : {});
const listOf = (value: XmlValue | undefined): XmlValue[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** ReadMultiple: every filter must match (a criteria `A|B` matches either), sorted by No, after the bookmark. */
function readMultiple(orders: Map<string, NavOrder>, request: XmlObject): NavOrder[] {
  const filters = listOf(request.filter).map(asObject).map((f) => ({ field: text(f.Field), allowed: text(f.Criteria).split('|') }));
  const fieldOf = (order: NavOrder, field: string): string => {
    const value = ({ No: order.no, Status: order.status, Put_Wall_Batch: order.putWallBatch, Container_Code: order.containerCode, Location_Code: order.locationCode } as Record<string, string>)[field];
    if (value === undefined) throw new NavFault('NavCSideException', `The field ${field} of the Sales Order page cannot be filtered.`);
    return value;
  };
  const matching = [...orders.values()].filter((order) => filters.every((f) => f.allowed.includes(fieldOf(order, f.field)))).sort((a, b) => a.no.localeCompare(b.no));
  const bookmark = text(request.bookmarkKey);
  const after = bookmark === '' ? 0 : matching.findIndex((order) => order.no === bookmark.split(';')[1]) + 1;
  if (bookmark !== '' && after === 0) throw new NavFault('NavCSideException', `The bookmark ${bookmark} is not valid.`);
  const setSize = Number(text(request.setSize) || '0');
  return matching.slice(after, setSize > 0 ? after + setSize : undefined);
}

function update(orders: Map<string, NavOrder>, request: XmlObject): NavOrder {
  const fields = asObject(request.SalesOrder);
  const key = text(fields.Key);
  const order = orders.get(key.split(';')[1] ?? '');
  if (!order) throw notFound('Sales Header', `Key='${key}'`);
  if (key !== navKey(order)) throw new NavFault('NavCSideConcurrencyException', `Another user has modified the record for this Sales Order after you retrieved it from the database. Enter your changes again in the updated window, or start the interrupted activity again. Identification fields and values: No.='${order.no}'`);
  if (fields.Container_Code !== undefined) order.containerCode = text(fields.Container_Code);
  if (fields.Description !== undefined) order.description = text(fields.Description);
  order.version += 1;
  return order;
}

function salesOrderPage(erp: SoapErp, action: string, request: XmlObject, x: NavXml): string {
  switch (action) {
    case 'Read': {
      // NAV answers a Read of an unknown record with an empty result, not a fault.
      const order = erp.orders.get(text(request.No));
      const result = x.root('Read_Result', SALES_ORDER_NS, order ? x.order(order) : '');
      if (order && erp.switches.concurrentWriter) order.version += 1;
      return result;
    }
    case 'ReadMultiple':
      return x.root('ReadMultiple_Result', SALES_ORDER_NS, x.el('ReadMultiple_Result', readMultiple(erp.orders, request).map((o) => x.order(o)).join('')));
    case 'Update':
      return x.root('Update_Result', SALES_ORDER_NS, x.order(update(erp.orders, request)));
    default:
      throw new NavFault('NavCSideException', `The Sales Order page has no operation ${action}.`);
  }
}

function itemPage(erp: SoapErp, action: string, request: XmlObject, x: NavXml): string {
  if (action !== 'Read') throw new NavFault('NavCSideException', `The Item page has no operation ${action}.`);
  const item = erp.items.get(text(request.No));
  return x.root('Read_Result', ITEM_NS, item ? x.item(item) : '');
}

const SERVICES: Record<string, { readonly ns: string; readonly run: (erp: SoapErp, action: string, request: XmlObject, x: NavXml) => string }> = {
  '/Page/SalesOrder': { ns: SALES_ORDER_NS, run: salesOrderPage },
  '/Page/Item': { ns: ITEM_NS, run: itemPage },
  '/Codeunit/WarehouseEvents': { ns: CODEUNIT_NS, run: (erp, action, request, x) => codeunit(erp, action, request, x) },
};

/** The answer to one request: status and XML text (a fault is 500, as NAV sends it). */
function answer(erp: SoapErp, servicePath: string, soapAction: string, raw: Buffer): { status: number; body: string } {
  const service = SERVICES[servicePath];
  if (!service) return { status: 404, body: `<html><body>No web service at ${escapeXml(servicePath)}</body></html>` };
  try {
    const action = soapAction.replace(/^"|"$/g, '');
    const name = action.startsWith(`${service.ns}:`) ? action.slice(service.ns.length + 1) : '';
    if (name === '') throw new NavFault('NavCSideException', `SOAPAction ${action} is not an operation of ${servicePath}.`);
    const document = parseXml(raw, { lists: ['filter', 'Relocation'] });
    const body = asObject(asObject(asObject(document.body.Envelope).Body));
    if (!(name in body)) throw new NavFault('NavCSideException', `The Body holds no ${name} element.`);
    if (erp.switches.denied?.includes(name)) throw new NavFault('NavPermissionException', `You do not have the following permissions on CodeUnit ${name}: Execute. To view details about your permissions, see the Effective Permissions page.`);
    return { status: 200, body: envelope(service.run(erp, name, asObject(document.result), new NavXml(erp.switches))) };
  } catch (error) {
    if (error instanceof NavFault) return { status: 500, body: faultXml(error) };
    return { status: 500, body: faultXml(new NavFault('NavCSideException', `The request could not be read: ${(error as Error).message}`)) };
  }
}

function shaped(erp: SoapErp, body: string): string {
  if (erp.switches.hostile) return HOSTILE[erp.switches.hostile];
  return erp.switches.truncate ? body.slice(0, Math.floor(body.length / 2)) : body;
}

export async function startSoapErp(basePath = '/WS/CRONUS'): Promise<SoapErp> {
  const requests: SoapRequestSeen[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const servicePath = (request.url ?? '').split('?')[0]!.slice(basePath.length);
      const soapAction = String(request.headers.soapaction ?? '');
      requests.push({ path: servicePath, soapAction, body: raw.toString('utf8') });
      const result = request.method === 'POST' ? answer(erp, servicePath, soapAction, raw) : { status: 405, body: '' };
      response.writeHead(result.status, { 'content-type': 'text/xml; charset=utf-8' });
      response.end(shaped(erp, result.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const erp: SoapErp = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${basePath}`,
    orders: new Map(seedOrders().map((order) => [order.no, order])),
    items: new Map(seedItems().map((item) => [item.no, item])),
    events: [],
    requests,
    switches: {},
    addOrders(count) {
      for (let n = 0; n < count; n += 1) {
        const order = makeOrder(`SO-${9000 + n}`, 1 + (n % 3));
        this.orders.set(order.no, order);
      }
    },
    close: () => new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    }),
  };
  return erp;
}
