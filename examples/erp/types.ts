/**
 * Data shapes of the example ERP.
 *
 * These are deliberately the ERP's OWN shapes (German-flavoured field names,
 * nested article blocks, dates without time, ERP unit codes) and NOT the
 * warehouse platform's adapter contract: the mapping files bridge the gap.
 */

/** ERP unit-of-measure codes used across the data. */
export const UNIT_CODES = [
  'PCE', 'M', 'CM', 'MM', 'KG', 'G', 'MG', 'L', 'CL', 'ML', 'GAL', 'LB', 'M2', 'M3',
] as const;
export type UnitCode = (typeof UNIT_CODES)[number];

export type OrderKind = 'STANDARD' | 'EXPRESS' | 'RETURN';
export type OrderState = 'RELEASED' | 'BLOCKED';
export type Direction = 'OUT' | 'IN';

/** Article block embedded in a sales order position. */
export interface ErpPositionArticle {
  no: string;
  text: string;
  longText: string;
  lang: string;
  id: string;
}

export interface ErpPosition {
  posNo: number;
  /** `<docId>-<posNo>` */
  posId: string;
  article: ErpPositionArticle;
  quantity: number;
  unit: UnitCode;
  lot: string | null;
  direction: Direction;
  bin: string | null;
  extra: Record<string, unknown>;
}

export interface ErpSalesOrder {
  docNo: string;
  docId: number;
  headerText: string;
  /** ISO date without time, `yyyy-MM-dd` */
  deliveryDate: string;
  /** German date format `dd.MM.yyyy` */
  wishDate: string | null;
  orderKind: OrderKind;
  warehouse: string;
  shipment: { no: string } | null;
  scanCode: string | null;
  state: OrderState;
  blockReason: string | null;
  /** Put Wall batch code */
  batch: string | null;
  custom: Record<string, unknown>;
  positions: ErpPosition[];
}

/** Item master record. */
export interface ErpArticle {
  articleNo: string;
  articleId: string;
  text: string;
  longText: string;
  lang: string;
  minStock: number;
  grossWeightKg: number;
  heightCm: number;
  widthCm: number;
  lengthCm: number;
  volumeL: number;
  maker: string;
  baseUnit: UnitCode;
  hasImage: boolean;
}

/** A sales order as read from an uploaded file: only `docNo` is guaranteed. */
export type ImportedPosition = Partial<Omit<ErpPosition, 'article'>> & {
  posNo: number;
  article?: Partial<ErpPositionArticle>;
};
export type ImportedSalesOrder = Partial<Omit<ErpSalesOrder, 'positions'>> & {
  docNo: string;
  positions: ImportedPosition[];
};
/** An article as read from an uploaded file: only `articleNo` is guaranteed. */
export type ImportedArticle = Partial<Omit<ErpArticle, 'grossWeightKg'>> & {
  articleNo: string;
  grossWeightKg?: number | null;
};

export type ErpEventType =
  | 'putwall-placement'
  | 'putwall-cancellation'
  | 'position-cancellation'
  | 'cart-relocation'
  | 'order-status'
  | 'pick-confirmation'
  | 'container-assignment';

/** Something the warehouse side posted to the ERP. */
export interface ErpEvent {
  id: number;
  type: ErpEventType;
  /** ISO timestamp */
  receivedAt: string;
  /** body exactly as received */
  body: unknown;
}

/** All mutable state of one ERP instance (nothing lives at module level). */
export interface ErpState {
  /** by docNo, seed orders first, then generated ones */
  salesOrders: Map<string, ErpSalesOrder>;
  /** item master by articleNo */
  articles: Map<string, ErpArticle>;
  /** articles with limited availability (articleNo -> available quantity) */
  availableStock: Map<string, number>;
  /** container code -> docNo currently assigned */
  containers: Map<string, string>;
  events: ErpEvent[];
  nextEventId: number;
  /** What the ERP pushed to the adapter engine (a new order, a cancelled line, a stock change), with the answers. */
  pushes: ErpPush[];
}

/** One push of the ERP to the engine's push endpoint, and what the engine answered. */
export interface ErpPush {
  id: number;
  /** The engine's push endpoint name: NewOrder, CancelOrderLine, StockChange. */
  push: string;
  sentAt: string;
  body: unknown;
  /** The engine's answer (202 with its event ids), or why there was none. */
  answer: { status: number; body: unknown } | { error: string };
}
