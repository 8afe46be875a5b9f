/**
 * A Dynamics NAV-style SOAP answer: ReadMultiple of `count` sales orders, each with a header and three
 * to five lines, values in elements and one attribute per line, without indentation (as NAV sends it).
 * 60 orders give about 100 KB: the size issue 30 measures the XML parse at.
 */

const PAGE_NS = 'urn:microsoft-dynamics-schemas/page/salesorder';

interface OrderLine { Line_No: string; Type: string; No: string; Description: string; Quantity: string; Unit_of_Measure_Code: string; Unit_Price: string; Location_Code: string }
interface Order { Key: string; No: string; Sell_to_Customer_No: string; Sell_to_Customer_Name: string; Order_Date: string; Requested_Delivery_Date: string; Status: string; External_Document_No: string; Salesperson_Code: string; SalesLines: { Sales_Order_Line: OrderLine[] } }

function orderData(index: number): Order {
  const lines = Array.from({ length: 3 + (index % 3) }, (_, line) => ({
    Line_No: String((line + 1) * 10000),
    Type: 'Item',
    No: `A-${100 + ((index + line) % 40)}`,
    Description: `Bolt M${4 + (line % 6)} & nut, zinc-plated <pack of ${10 * (line + 1)}>`,
    Quantity: String(1 + ((index * 7 + line) % 25)),
    Unit_of_Measure_Code: 'PCS',
    Unit_Price: `${(index % 9) + 1}.${String(line * 7).padStart(2, '0')}`,
    Location_Code: 'MAIN',
  }));
  return {
    Key: `32;GwAAAAJ7/1MATwAtADEAMAAw${index}AAAAAIWm+1;${5_000_000 + index};`,
    No: `SO-${10000 + index}`,
    Sell_to_Customer_No: `C-${2000 + (index % 17)}`,
    Sell_to_Customer_Name: `Müller & Söhne Maschinenbau ${index % 17}`,
    Order_Date: '2026-11-20',
    Requested_Delivery_Date: `2026-12-${String(1 + (index % 28)).padStart(2, '0')}`,
    Status: index % 5 === 0 ? 'Released' : 'Open',
    External_Document_No: `PO-${7000 + index}`,
    Salesperson_Code: 'JR',
    SalesLines: { Sales_Order_Line: lines },
  };
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function fieldsXml(record: object): string {
  return Object.entries(record).map(([name, value]) => `<${name}>${escape(String(value))}</${name}>`).join('');
}

function orderXml(order: Order): string {
  const { SalesLines, ...header } = order;
  const lines = SalesLines.Sales_Order_Line.map(({ Line_No, ...line }) => `<Sales_Order_Line lineNo="${Line_No}">${fieldsXml(line)}</Sales_Order_Line>`);
  return `<SalesOrder>${fieldsXml(header)}<SalesLines>${lines.join('')}</SalesLines></SalesOrder>`;
}

export function ordersAnswer(count: number): string {
  const orders = Array.from({ length: count }, (_, index) => orderData(index));
  return `<?xml version="1.0" encoding="utf-8"?><Soap:Envelope xmlns:Soap="http://schemas.xmlsoap.org/soap/envelope/"><Soap:Body><ReadMultiple_Result xmlns="${PAGE_NS}"><ReadMultiple_Result>${orders.map(orderXml).join('')}</ReadMultiple_Result></ReadMultiple_Result></Soap:Body></Soap:Envelope>`;
}
