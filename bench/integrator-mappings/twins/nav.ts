/**
 * What a developer would write instead of nav-orders.yaml: the same SOAP requests (built as text, as
 * hand-written SOAP clients do), the answers read with saxes, the same answer.
 */
import { child, field, readXml, type XmlElement } from './xml';
import { envelope, Refused, REQUEST_TYPE, RESULTS, routeTwin, UNIT_OF_MEASURE, type Transport } from './transport';

const SO = 'urn:microsoft-dynamics-schemas/page/salesorder';
const SL = 'urn:microsoft-dynamics-schemas/page/saleslines';
const IT = 'urn:microsoft-dynamics-schemas/page/item';
const WH = 'urn:microsoft-dynamics-schemas/codeunit/WarehouseEvents';
const UNITS: Readonly<Record<string, string>> = { PCS: 'Piece', BOX: 'Piece', KG: 'Kilogram', M: 'Meter', L: 'Liter' };

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const soap = (body: string) => `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>${body}</s:Body></s:Envelope>`;
const iso = (date: string | undefined) => (date === undefined ? undefined : `${date}T00:00:00Z`);

interface Line { readonly element: XmlElement; readonly document: string; readonly lineNo: string; readonly status: string }

function unit(code: string | undefined): number {
  const platform = code === undefined ? undefined : UNITS[code];
  if (platform === undefined) throw new Error(`unit ${code} is not known`);
  return UNIT_OF_MEASURE[platform];
}

function request(line: Line, order: XmlElement, items: ReadonlyMap<string, XmlElement>) {
  const no = field(line.element, 'No') ?? '';
  const item = items.get(no);
  if (!item) throw new Error(`item ${no} of order ${field(order, 'No')} is not in NAV`);
  const text = field(line.element, 'Description');
  return {
    itemNumber: field(item, 'No'),
    itemName: text ? text.replace(/\s+LOT-[A-Z]\d{4}$/, '') : field(item, 'Description'),
    itemDescription: field(item, 'Description_2'),
    requestedAmount: Number(field(line.element, 'Quantity')),
    unitOfMeasure: unit(field(item, 'Base_Unit_of_Measure')),
    lotNumber: text?.includes('LOT-') ? text.slice(text.indexOf('LOT-') + 4) : null,
    requestExternalIdentifier: `${field(order, 'No')}-${line.lineNo}`,
    order: Number(line.lineNo),
    requestType: field(order, 'Document_Type') === 'Return Order' ? REQUEST_TYPE.PlaceItem : REQUEST_TYPE.PickItem,
  };
}

function workOrder(order: XmlElement, lines: readonly Line[], items: ReadonlyMap<string, XmlElement>) {
  const no = field(order, 'No');
  const mine = lines.filter((line) => line.document === no);
  const open = mine.filter((line) => line.status === 'Open').sort((a, b) => Number(a.lineNo) - Number(b.lineNo));
  const quantities: Record<string, number> = {};
  for (const line of open) {
    const item = field(line.element, 'No') ?? '';
    quantities[item] = (quantities[item] ?? 0) + Number(field(line.element, 'Quantity'));
  }
  const key = field(order, 'Key') ?? '';
  const afterFirst = key.slice(key.indexOf(';') + 1);
  const type = field(order, 'Document_Type');
  return {
    number: no,
    externalIdentifier: afterFirst.includes(';') ? afterFirst.slice(0, afterFirst.indexOf(';')) : afterFirst,
    description: field(order, 'Posting_Description'),
    dueDate: iso(field(order, 'Due_Date')),
    customerRequiredDeliveryDate: iso(field(order, 'Requested_Delivery_Date')),
    workOrderTypeName: field(order, 'Priority') === '1' ? 'Express' : type,
    designatedStorageName: field(order, 'Location_Code'),
    deliveryNumber: field(order, 'External_Document_No'),
    externalData: JSON.stringify({
      customer: field(order, 'Sell_to_Customer_Name')?.trim().slice(0, 20),
      cancelled: mine.filter((line) => line.status === 'Cancelled').length,
      items: open.length === 0 ? undefined : [...new Set(open.map((line) => field(line.element, 'No')))].join(','),
      quantities,
    }),
    requests: open.map((line) => request(line, order, items)),
  };
}

export function navTwin(transport: Transport) {
  /** `name`: the mapping's name of the call, which a refusal names. */
  const call = async (name: string, path: string, action: string, body: string): Promise<XmlElement> => {
    const answer = await transport({ method: 'POST', path, headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${action}"` }, body: soap(body) });
    const bodyElement = child(readXml(answer.body as string), 'Body');
    const fault = child(bodyElement, 'Fault');
    if (fault) throw new Refused(name, field(fault, 'faultstring') ?? '');
    if (answer.status !== 200) throw new Refused(name, `The ERP answered ${answer.status}`);
    return bodyElement?.children[0] as XmlElement;
  };
  const readMultiple = async (name: string, page: string, namespace: string, filter?: { field: string; criteria: string }) => {
    const filterXml = filter ? `<filter><Field>${filter.field}</Field><Criteria>${escape(filter.criteria)}</Criteria></filter>` : '';
    const result = await call(name, page, `${namespace}:ReadMultiple`, `<ReadMultiple xmlns="${namespace}">${filterXml}<setSize>0</setSize></ReadMultiple>`);
    return child(result, 'ReadMultiple_Result')?.children ?? [];
  };
  const linesAndItems = async (filter?: { field: string; criteria: string }) => {
    const lines = (await readMultiple('lines', '/Page/SalesLines', SL, filter)).map((element) => ({
      element, document: field(element, 'Document_No') ?? '', lineNo: field(element, 'Line_No') ?? '', status: field(element, 'Status') ?? '',
    }));
    const numbers = [...new Set(lines.map((line) => field(line.element, 'No')).filter((no) => no !== undefined))];
    const items = await readMultiple('items', '/Page/Item', IT, { field: 'No', criteria: numbers.join('|') });
    return { lines, items: new Map(items.map((item) => [field(item, 'No') ?? '', item])) };
  };

  async function list(): Promise<string> {
    const orders = await readMultiple('orders', '/Page/SalesOrder', SO);
    const { lines, items } = await linesAndItems();
    return envelope(true, RESULTS.list.Succeed, orders.map((order) => workOrder(order, lines, items)));
  }

  async function byCode(code: string): Promise<string> {
    const result = await call('order', '/Page/SalesOrder', `${SO}:Read`, `<Read xmlns="${SO}"><No>${escape(code)}</No></Read>`);
    const order = child(result, 'SalesOrder');
    if (!order) return envelope(false, RESULTS.code.WorkOrderDoesNotExist, null, `Order ${code} is not known in NAV`);
    const { lines, items } = await linesAndItems({ field: 'Document_No', criteria: code });
    return envelope(true, RESULTS.code.Succeed, workOrder(order, lines, items));
  }

  async function putWall(event: { workOrderNumber: string; itemNumber: string; completedAmount: number; confirmedLocationName: string; userEmail: string; itemNames: { languageIsoCode: string; name: string }[] }): Promise<string> {
    const names = event.itemNames.filter((name) => name.languageIsoCode === 'en').map((name) => name.name).join(', ');
    const values = [
      ['orderNo', event.workOrderNumber], ['itemNo', event.itemNumber], ['quantity', String(event.completedAmount)],
      ['bin', event.confirmedLocationName.trim().toUpperCase()], ['user', event.userEmail], ['note', `placed ${event.completedAmount} of ${names}`],
    ];
    await call('placement', '/Codeunit/WarehouseEvents', `${WH}:PutWallPlaced`, `<PutWallPlaced xmlns="${WH}">${values.map(([name, value]) => `<${name}>${escape(value)}</${name}>`).join('')}</PutWallPlaced>`);
    return envelope(true, RESULTS.putWall.Succeed);
  }

  return routeTwin({ list, byCode, putWall });
}
