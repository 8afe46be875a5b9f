/**
 * The records of the Dynamics NAV-style SOAP stand-in (test/support/soap-erp.ts) and how it writes them
 * as XML text: pages write one element per field, as NAV does, plus a few values in attributes
 * (a line's quantity carries its unit, an item's weight its unit) so the attribute rules are exercised.
 * The XML is written here by hand, never with engine/xml, so a bug in the engine's writer cannot hide
 * behind the same bug in the stand-in.
 */

export interface NavLine {
  readonly lineNo: number;
  /** Pick (out of the warehouse) or Put (into it). */
  readonly type: 'Pick' | 'Put';
  readonly itemNo: string;
  readonly description: string;
  quantity: number;
  readonly unit: string;
  readonly bin: string;
  cancelled: boolean;
}

export interface NavOrder {
  readonly no: string;
  /** Bumped by every write; the page's Key carries it, so an Update with an old Key is refused. */
  version: number;
  status: 'Open' | 'Released' | 'Blocked';
  description: string;
  readonly dueDate: string;
  readonly locationCode: string;
  readonly customerName: string;
  containerCode: string;
  readonly putWallBatch: string;
  readonly blockReason: string;
  readonly lines: NavLine[];
}

export interface NavItem {
  readonly no: string;
  readonly description: string;
  readonly unit: string;
  readonly weightKg: string;
  /** How many the warehouse holds: a pick confirmation above it is corrected. */
  readonly available: number;
  readonly bin: string;
  /** The item picture as Base64, when it has one. */
  readonly picture?: string;
}

/** How the stand-in writes its answers: the switches of the hostile and unusual answers. */
export interface AnswerStyle {
  /** Write every element of the page or codeunit namespace with this prefix instead of a default namespace. */
  prefix?: string;
  /** Write descriptions as CDATA sections. */
  cdata?: boolean;
}

/** A NAV exception: answered as a SOAP 1.1 fault with HTTP 500, its class name in the faultcode. */
export class NavFault extends Error {
  constructor(readonly exception: string, message: string) {
    super(message);
  }
}

export const notFound = (table: string, fields: string): NavFault => new NavFault('NavNCLRecordNotFoundException', `The ${table} does not exist. Identification fields and values: ${fields}`);

export const navKey = (order: NavOrder): string => `${order.version};${order.no}`;

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** Writes elements in one namespace, with the answer style's prefix (or none) and text or CDATA. */
export class NavXml {
  constructor(private readonly style: AnswerStyle) {}

  private name(local: string): string {
    return this.style.prefix ? `${this.style.prefix}:${local}` : local;
  }

  /** The result element, declaring the namespace the way the style says. */
  root(local: string, uri: string, content: string): string {
    const declaration = this.style.prefix ? `xmlns:${this.style.prefix}="${uri}"` : `xmlns="${uri}"`;
    return `<${this.name(local)} ${declaration}>${content}</${this.name(local)}>`;
  }

  el(local: string, content: string, attributes: Readonly<Record<string, string>> = {}): string {
    const attrs = Object.entries(attributes).map(([name, value]) => ` ${name}="${escapeXml(value)}"`).join('');
    return content === '' ? `<${this.name(local)}${attrs}/>` : `<${this.name(local)}${attrs}>${content}</${this.name(local)}>`;
  }

  text(local: string, value: string | number, attributes?: Readonly<Record<string, string>>): string {
    return this.el(local, escapeXml(String(value)), attributes);
  }

  /** Free text: CDATA when the style asks for it (a `]]>` inside is split over two sections, as writers do). */
  prose(local: string, value: string): string {
    if (!this.style.cdata || value === '') return this.text(local, value);
    return this.el(local, `<![CDATA[${value.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`);
  }

  order(order: NavOrder): string {
    const x = { el: this.el.bind(this), text: this.text.bind(this), prose: this.prose.bind(this) };
    const lines = order.lines.map((line) => x.el('Sales_Order_Line', [
      x.text('Line_No', line.lineNo), x.text('Type', line.type), x.text('No', line.itemNo), x.prose('Description', line.description),
      x.text('Quantity', line.quantity, { unit: line.unit }), x.text('Bin_Code', line.bin), x.text('Cancelled', String(line.cancelled)),
    ].join('')));
    return x.el('SalesOrder', [
      x.text('Key', navKey(order)), x.text('No', order.no), x.prose('Description', order.description), x.text('Status', order.status),
      x.text('Due_Date', order.dueDate), x.text('Location_Code', order.locationCode), x.prose('Sell_to_Customer_Name', order.customerName),
      x.prose('Container_Code', order.containerCode), x.text('Put_Wall_Batch', order.putWallBatch), x.prose('Block_Reason', order.blockReason),
      x.el('SalesLines', lines.join('')),
    ].join(''));
  }

  item(item: NavItem): string {
    return this.el('Item', [
      this.text('Key', `1;${item.no}`), this.text('No', item.no), this.prose('Description', item.description),
      this.text('Base_Unit_of_Measure', item.unit), this.text('Gross_Weight', item.weightKg, { unit: 'KG' }), this.text('Inventory', item.available),
    ].join(''));
  }
}

const line = (lineNo: number, itemNo: string, description: string, quantity: number, unit = 'PCE', type: NavLine['type'] = 'Pick', bin = ''): NavLine =>
  ({ lineNo, type, itemNo, description, quantity, unit, bin, cancelled: false });

/** The seed: five released orders (one with one line, others with several), a blocked one, three items. */
export function seedOrders(): NavOrder[] {
  const order = (no: string, lines: NavLine[], extra: Partial<NavOrder> = {}): NavOrder => ({
    no, version: 1, status: 'Released', description: `Restock ${no}`, dueDate: '2026-12-01', locationCode: 'WH-MAIN',
    customerName: 'Baumarkt Berlin Mitte', containerCode: '', putWallBatch: '', blockReason: '', lines, ...extra,
  });
  return [
    order('SO-1001', [line(10000, 'A-100', 'Hex bolt M8', 12, 'PCE', 'Pick', 'A-01-02'), line(20000, 'A-200', 'Copper cable NYM-J 3x1.5', 50, 'M', 'Put', 'B-03-01')]),
    order('SO-1002', [line(10000, 'A-100', 'Hex bolt M8', 4, 'PCE', 'Pick', 'PW-01-A1')], { putWallBatch: 'PW-1' }),
    order('SO-1003', [line(10000, 'A-300', 'Cement 25 kg', 5, 'KG'), line(20000, 'A-100', 'Hex bolt M8', 2), line(30000, 'A-200', 'Copper cable', 3, 'M')], { putWallBatch: 'PW-1' }),
    order('SO-1004', [line(10000, 'A-200', 'Copper cable', 7, 'M')], { description: 'Nuts & Bolts <M8> "special" \'rush\'' }),
    order('SO-1005', [line(10000, 'A-100', 'Hex bolt M8', 1)], { status: 'Blocked', blockReason: 'Customer credit limit exceeded' }),
    order('SO-1006', [line(10000, 'A-300', 'Cement 25 kg', 1, 'KG')], { customerName: 'Bau & Garten GmbH' }),
  ];
}

/** A 1x1 PNG: the contract checks that an image route answers an image. */
export const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export function seedItems(): NavItem[] {
  return [
    { no: 'A-100', description: 'Hex bolt M8', unit: 'PCE', weightKg: '0.012', available: 500, bin: 'A-01-02', picture: ONE_PIXEL_PNG },
    { no: 'A-200', description: 'Copper cable NYM-J 3x1.5', unit: 'M', weightKg: '0.11', available: 1000, bin: 'B-03-01' },
    { no: 'A-300', description: 'Cement 25 kg', unit: 'KG', weightKg: '25', available: 3, bin: 'C-02-01' },
  ];
}

/** A sales order with `lineCount` lines, for tests that need many orders (paging). */
export function makeOrder(no: string, lineCount: number): NavOrder {
  const lines = Array.from({ length: lineCount }, (_, index) => line((index + 1) * 10000, 'A-100', 'Hex bolt M8', index + 1));
  return { ...seedOrders()[0]!, no, lines, version: 1 };
}
