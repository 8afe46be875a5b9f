/**
 * A Dynamics NAV-style SOAP ERP for the corpus (SOAP 1.1): the pages SalesOrder (Read, ReadMultiple),
 * SalesLines and Item (ReadMultiple, all records or a filter of `A|B|C`), and the codeunit
 * WarehouseEvents (PutWallPlaced). Every value is element text; an empty field is no element, as NAV
 * leaves it out; an unknown order's Read is an empty Read_Result; a refusal is a SOAP fault with 500.
 */
import { corpusData, type CorpusData } from '../data';
import { listen, type StandIn } from './listen';

const SO = 'urn:microsoft-dynamics-schemas/page/salesorder';
const SL = 'urn:microsoft-dynamics-schemas/page/saleslines';
const IT = 'urn:microsoft-dynamics-schemas/page/item';
const WH = 'urn:microsoft-dynamics-schemas/codeunit/WarehouseEvents';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** Elements of the fields that have a value, in order. */
function fields(values: Record<string, string | number | null | undefined>): string {
  return Object.entries(values).filter(([, value]) => value !== null && value !== undefined).map(([name, value]) => `<${name}>${escape(String(value))}</${name}>`).join('');
}

const navDate = (due: string) => due.slice(0, 10);

function records(data: CorpusData) {
  const orderNo = new Map(data.orders.map((order) => [order.id, order.number]));
  const itemNo = new Map(data.products.map((product) => [product.id, product.code]));
  return {
    orders: data.orders.map((o) => ({
      no: o.number,
      xml: `<SalesOrder>${fields({
        Key: `12;${o.id};`, No: o.number, Sell_to_Customer_Name: ` ${o.customer} `, External_Document_No: o.reference, Location_Code: o.warehouse,
        Due_Date: navDate(o.due), Requested_Delivery_Date: o.promised && navDate(o.promised), Posting_Description: o.note, Document_Type: o.kind === 'incoming' ? 'Return Order' : 'Order', Priority: o.priority,
      })}</SalesOrder>`,
    })),
    lines: data.lines.map((l) => ({
      order: orderNo.get(l.orderId) as string,
      xml: `<Sales_Line>${fields({
        Document_No: orderNo.get(l.orderId), Line_No: l.sequence * 100 + (l.id % 97), No: itemNo.get(l.productId), Description: l.text, Quantity: l.quantity,
        Status: l.cancelled ? 'Cancelled' : 'Open', Line_Id: l.id,
      })}</Sales_Line>`,
    })),
    items: data.products.map((p) => ({
      no: p.code,
      xml: `<Item>${fields({ No: p.code, Description: p.name, Description_2: p.description, Base_Unit_of_Measure: { Units: 'PCS', kg: 'KG', m: 'M', L: 'L', Box: 'BOX' }[p.unit] })}</Item>`,
    })),
  };
}

const envelope = (body: string) => `<?xml version="1.0" encoding="utf-8"?><Soap:Envelope xmlns:Soap="http://schemas.xmlsoap.org/soap/envelope/"><Soap:Body>${body}</Soap:Body></Soap:Envelope>`;
const fault = (message: string) => ({ status: 500, type: 'text/xml; charset=utf-8', text: envelope(`<Soap:Fault><faultcode>a:Microsoft.Dynamics.Nav.Service.WebServices.ServiceBrokerException</faultcode><faultstring xml:lang="en-US">${escape(message)}</faultstring><detail><string xmlns="http://schemas.microsoft.com/2003/10/Serialization/">${escape(message)}</string></detail></Soap:Fault>`) });
const ok = (body: string) => ({ status: 200, type: 'text/xml; charset=utf-8', text: envelope(body) });

/** `Criteria` of the filter on `field`, as a set of values (NAV's `A|B|C`), or undefined for none. */
function criteria(body: string, field: string): Set<string> | undefined {
  const filter = new RegExp(`<(?:\\w+:)?Field>${field}</(?:\\w+:)?Field>\\s*<(?:\\w+:)?Criteria>([^<]*)</`).exec(body);
  return filter ? new Set(unescape(filter[1]).split('|')) : undefined;
}

export async function startNavErp(orders: number): Promise<StandIn> {
  const { orders: salesOrders, lines, items } = records(corpusData(orders));
  const readMultiple = (namespace: string, rows: { xml: string }[]) => ok(`<ReadMultiple_Result xmlns="${namespace}"><ReadMultiple_Result>${rows.map((row) => row.xml).join('')}</ReadMultiple_Result></ReadMultiple_Result>`);
  return listen((method, url, headers, body) => {
    const action = String(headers.soapaction ?? '').replace(/"/g, '');
    if (method !== 'POST') return fault('only POST');
    if (url.pathname === '/Page/SalesOrder' && action === `${SO}:Read`) {
      const no = unescape(/<(?:\w+:)?No>([^<]*)</.exec(body)?.[1] ?? '');
      const order = salesOrders.find((candidate) => candidate.no === no);
      return ok(`<Read_Result xmlns="${SO}">${order ? order.xml : ''}</Read_Result>`);
    }
    if (url.pathname === '/Page/SalesOrder' && action === `${SO}:ReadMultiple`) return readMultiple(SO, salesOrders);
    if (url.pathname === '/Page/SalesLines' && action === `${SL}:ReadMultiple`) {
      const wanted = criteria(body, 'Document_No');
      return readMultiple(SL, wanted ? lines.filter((line) => wanted.has(line.order)) : lines);
    }
    if (url.pathname === '/Page/Item' && action === `${IT}:ReadMultiple`) {
      const wanted = criteria(body, 'No');
      return readMultiple(IT, wanted ? items.filter((item) => wanted.has(item.no)) : items);
    }
    if (url.pathname === '/Codeunit/WarehouseEvents' && action === `${WH}:PutWallPlaced`) {
      const no = unescape(/<(?:\w+:)?orderNo>([^<]*)</.exec(body)?.[1] ?? '');
      if (!salesOrders.some((order) => order.no === no)) return fault(`The Sales Header does not exist. Identification fields and values: Document Type='Order',No.='${no}'`);
      return ok(`<PutWallPlaced_Result xmlns="${WH}"><return_value>true</return_value></PutWallPlaced_Result>`);
    }
    return fault(`no service ${url.pathname} ${action}`);
  });
}
