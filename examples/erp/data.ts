/**
 * Seed data of the example ERP plus the deterministic generator for
 * synthetic load-test orders. Every call returns fresh objects, so each
 * ERP instance owns its data.
 */
import type {
  Direction, ErpArticle, ErpEvent, ErpEventType, ErpPosition, ErpSalesOrder, ErpState, UnitCode,
} from './types';

/** Article that is short on stock, and how much of it is available. */
export const SHORT_ARTICLE = 'A-300';
export const SHORT_ARTICLE_AVAILABLE = 3;

export function seedArticles(): ErpArticle[] {
  return [
    {
      articleNo: 'A-100', articleId: 'ART-100', text: 'Hex bolt M8', longText: 'Zinc plated hex bolt, M8 x 40',
      lang: 'en', minStock: 50, grossWeightKg: 0.02, heightCm: 1, widthCm: 1, lengthCm: 4, volumeL: 0.004,
      maker: 'Bolt & Co', baseUnit: 'PCE', hasImage: true,
    },
    {
      articleNo: 'A-200', articleId: 'ART-200', text: 'Copper cable NYM-J 3x1.5',
      longText: 'Installation cable NYM-J 3x1.5 mm², grey, sold by the metre', lang: 'en', minStock: 100,
      grossWeightKg: 0.12, heightCm: 1, widthCm: 1, lengthCm: 100, volumeL: 0.1,
      maker: 'Kabelwerk Nord', baseUnit: 'M', hasImage: true,
    },
    {
      articleNo: 'A-300', articleId: 'ART-300', text: 'Machine oil 5W-30', longText: 'Fully synthetic machine oil, 1 l bottle',
      lang: 'en', minStock: 10, grossWeightKg: 0.95, heightCm: 25, widthCm: 8, lengthCm: 8, volumeL: 1.1,
      maker: 'LubriTec', baseUnit: 'L', hasImage: true,
    },
    {
      articleNo: 'A-400', articleId: 'ART-400', text: 'Zement CEM I 42,5 R', longText: 'Portlandzement, Sackware 25 kg',
      lang: 'de', minStock: 500, grossWeightKg: 1, heightCm: 10, widthCm: 40, lengthCm: 60, volumeL: 0.68,
      maker: 'Baustoff Süd GmbH', baseUnit: 'KG', hasImage: true,
    },
    {
      articleNo: 'A-500', articleId: 'ART-500', text: 'Safety gloves size 9',
      longText: 'Nitrile-coated assembly gloves, size 9 (L), pair', lang: 'en', minStock: 20,
      grossWeightKg: 0.05, heightCm: 1, widthCm: 12, lengthCm: 25, volumeL: 0.3,
      maker: 'SafeHands', baseUnit: 'PCE', hasImage: false,
    },
    {
      articleNo: 'A-600', articleId: 'ART-600', text: 'Stahlblech DC01 2 mm', longText: 'Kaltgewalztes Stahlblech DC01, 2 mm, Zuschnitt',
      lang: 'de', minStock: 5, grossWeightKg: 15.7, heightCm: 0.2, widthCm: 100, lengthCm: 100, volumeL: 2,
      maker: 'Stahlhandel West', baseUnit: 'M2', hasImage: true,
    },
  ];
}

interface PositionSpec {
  article: string;
  quantity: number;
  unit?: UnitCode;
  lot?: string | null;
  direction?: Direction;
  bin?: string | null;
  extra?: Record<string, unknown>;
}

/** Builds positions 10, 20, ... with the article block copied from the item master. */
function positions(docId: number, articles: Map<string, ErpArticle>, specs: PositionSpec[]): ErpPosition[] {
  return specs.map((spec, index) => {
    const article = articles.get(spec.article);
    if (!article) throw new Error(`seed data refers to unknown article ${spec.article}`);
    const posNo = (index + 1) * 10;
    return {
      posNo,
      posId: `${docId}-${posNo}`,
      article: { no: article.articleNo, text: article.text, longText: article.longText, lang: article.lang, id: article.articleId },
      quantity: spec.quantity,
      unit: spec.unit ?? article.baseUnit,
      lot: spec.lot ?? null,
      direction: spec.direction ?? 'OUT',
      bin: spec.bin ?? null,
      extra: spec.extra ?? {},
    };
  });
}

type OrderSpec = Omit<ErpSalesOrder, 'positions' | 'warehouse' | 'state' | 'blockReason' | 'batch' | 'shipment' | 'scanCode' | 'wishDate' | 'orderKind'>
  & Partial<Pick<ErpSalesOrder, 'warehouse' | 'state' | 'blockReason' | 'batch' | 'shipment' | 'scanCode' | 'wishDate' | 'orderKind'>>
  & { positions: PositionSpec[] };

function order(spec: OrderSpec, articles: Map<string, ErpArticle>): ErpSalesOrder {
  return {
    docNo: spec.docNo,
    docId: spec.docId,
    headerText: spec.headerText,
    deliveryDate: spec.deliveryDate,
    wishDate: spec.wishDate ?? null,
    orderKind: spec.orderKind ?? 'STANDARD',
    warehouse: spec.warehouse ?? 'WH-MAIN',
    shipment: spec.shipment ?? null,
    scanCode: spec.scanCode ?? null,
    state: spec.state ?? 'RELEASED',
    blockReason: spec.blockReason ?? null,
    batch: spec.batch ?? null,
    custom: spec.custom,
    positions: positions(spec.docId, articles, spec.positions),
  };
}

export function seedSalesOrders(articles: Map<string, ErpArticle>): ErpSalesOrder[] {
  const specs: OrderSpec[] = [
    {
      docNo: 'SO-1001', docId: 50001, headerText: 'Weekly restock Berlin', deliveryDate: '2026-12-01', wishDate: '02.12.2026',
      shipment: { no: 'SHP-9001' }, scanCode: '4006381333931', batch: 'PW-01',
      custom: { customerName: 'Baumarkt Berlin Mitte', route: 'R12', priority: 'high' },
      positions: [
        { article: 'A-100', quantity: 12, lot: 'L-2026-11', bin: 'A-01-02', extra: { packing: 'box' } },
        { article: 'A-200', quantity: 50, bin: 'B-03-01', extra: { packing: 'coil' } },
      ],
    },
    {
      docNo: 'SO-1002', docId: 50002, headerText: 'Cement delivery Potsdam', deliveryDate: '2026-12-01', orderKind: 'EXPRESS',
      shipment: { no: 'SHP-9002' }, batch: 'PW-01',
      custom: { customerName: 'Bau & Garten Potsdam', route: 'R12', priority: 'normal' },
      positions: [
        { article: 'A-400', quantity: 250, lot: 'CEM-2610', bin: 'C-10-01', extra: { packing: 'pallet' } },
        { article: 'A-500', quantity: 20 },
      ],
    },
    {
      docNo: 'SO-1003', docId: 50003, headerText: 'Workshop supplies Leipzig', deliveryDate: '2026-12-03', wishDate: '03.12.2026',
      scanCode: '4006381333948',
      custom: { customerName: 'Kfz-Werkstatt Leipzig', route: 'R07', priority: 'normal' },
      positions: [
        { article: 'A-300', quantity: 5, lot: 'OIL-2611', bin: 'D-02-04' },
        { article: 'A-100', quantity: 100, lot: 'L-2026-11', bin: 'A-01-02', extra: { packing: 'box' } },
      ],
    },
    {
      docNo: 'SO-1004', docId: 50004, headerText: 'Customer return Hamburg', deliveryDate: '2026-12-04', orderKind: 'RETURN',
      shipment: { no: 'SHP-9004' },
      custom: { customerName: 'Hafenbau Hamburg', route: 'R03', priority: 'low', returnReason: 'wrong size' },
      positions: [
        { article: 'A-500', quantity: 4, direction: 'IN', extra: { condition: 'unused' } },
        { article: 'A-300', quantity: 2, direction: 'IN', lot: 'OIL-2611', bin: 'RET-01' },
      ],
    },
    {
      docNo: 'SO-1005', docId: 50005, headerText: 'Sheet metal Munich', deliveryDate: '2026-12-05', wishDate: '04.12.2026',
      state: 'BLOCKED', blockReason: 'Customer credit limit exceeded',
      custom: { customerName: 'Metallbau München', route: 'R21', priority: 'high' },
      positions: [{ article: 'A-600', quantity: 12.5, bin: 'E-01-01' }],
    },
    {
      docNo: 'SO-1006', docId: 50006, headerText: 'Site delivery Dresden', deliveryDate: '2026-12-07', batch: 'PW-02',
      shipment: { no: 'SHP-9006' },
      custom: { customerName: 'Hochbau Dresden', route: 'R09', priority: 'normal' },
      positions: [
        { article: 'A-400', quantity: 500, lot: 'CEM-2610', bin: 'C-10-01', extra: { packing: 'pallet' } },
        { article: 'A-200', quantity: 120, bin: 'B-03-01', extra: { packing: 'coil' } },
      ],
    },
    {
      docNo: 'SO-1007', docId: 50007, headerText: 'Express spare parts Cologne', deliveryDate: '2026-12-02', wishDate: '02.12.2026',
      orderKind: 'EXPRESS', shipment: { no: 'SHP-9007' }, scanCode: '4006381333955',
      custom: { customerName: 'Maschinenbau Köln', route: 'R15', priority: 'high' },
      positions: [
        { article: 'A-100', quantity: 8, lot: 'L-2026-11', bin: 'A-01-02' },
        { article: 'A-600', quantity: 3, unit: 'M2', bin: 'E-01-01' },
      ],
    },
    {
      docNo: 'SO-1008', docId: 50008, headerText: 'Monthly restock Frankfurt', deliveryDate: '2026-12-10',
      custom: { customerName: 'Baumarkt Frankfurt Ost', route: 'R18', priority: 'low' },
      positions: [
        { article: 'A-100', quantity: 250, lot: 'L-2026-12', bin: 'A-01-03', extra: { packing: 'box' } },
        { article: 'A-200', quantity: 300, bin: 'B-03-01' },
        { article: 'A-400', quantity: 1000, bin: 'C-10-02', extra: { packing: 'pallet' } },
        { article: 'A-500', quantity: 40 },
      ],
    },
  ];
  return specs.map((spec) => order(spec, articles));
}

/** Small deterministic PRNG (mulberry32), local to one generator call. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Synthetic released orders SO-200001, SO-200002, ... with 1–5 positions
 * each (never the short-stock article). Same count => same orders, on every call.
 */
export function generateOrders(count: number, articles: Map<string, ErpArticle>): ErpSalesOrder[] {
  const random = prng(20261201);
  const pool = [...articles.keys()].filter((no) => no !== SHORT_ARTICLE); // no stock corrections under load
  const result: ErpSalesOrder[] = [];
  for (let i = 1; i <= count; i++) {
    const docId = 70000 + i;
    const day = 1 + (i % 28);
    const picked = [...pool];
    for (let j = picked.length - 1; j > 0; j--) {
      const k = Math.floor(random() * (j + 1));
      [picked[j], picked[k]] = [picked[k], picked[j]];
    }
    picked.length = 1 + Math.floor(random() * 5);
    result.push(order({
      docNo: `SO-${200000 + i}`,
      docId,
      headerText: `Synthetic load order ${i}`,
      deliveryDate: `2027-01-${String(day).padStart(2, '0')}`,
      wishDate: i % 3 === 0 ? `${String(day).padStart(2, '0')}.01.2027` : null,
      orderKind: i % 10 === 0 ? 'EXPRESS' : 'STANDARD',
      custom: { customerName: `Load customer ${1 + (i % 50)}`, route: `R${String(1 + (i % 24)).padStart(2, '0')}`, priority: 'normal' },
      positions: picked.map((articleNo) => ({
        article: articleNo,
        quantity: 1 + Math.floor(random() * 20),
        bin: `L-${String(1 + Math.floor(random() * 40)).padStart(2, '0')}-01`,
      })),
    }, articles));
  }
  return result;
}

/** Fresh state for one ERP instance. */
export function createErpState(options: { extraOrders?: number } = {}): ErpState {
  const articles = new Map(seedArticles().map((a) => [a.articleNo, a] as const));
  const orders = [...seedSalesOrders(articles), ...generateOrders(options.extraOrders ?? 0, articles)];
  return {
    salesOrders: new Map(orders.map((o) => [o.docNo, o] as const)),
    articles,
    availableStock: new Map([[SHORT_ARTICLE, SHORT_ARTICLE_AVAILABLE]]),
    containers: new Map(),
    events: [],
    nextEventId: 1,
    pushes: [],
  };
}

/** Appends an event to the instance's log and returns it. */
export function recordEvent(state: ErpState, type: ErpEventType, body: unknown): ErpEvent {
  const event: ErpEvent = { id: state.nextEventId++, type, receivedAt: new Date().toISOString(), body };
  state.events.push(event);
  return event;
}
