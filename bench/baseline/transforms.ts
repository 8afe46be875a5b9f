import type { ErpPosition, ErpSalesOrder } from '../../examples/erp/types';

/**
 * The example customer's transforms written by hand: what `mappings/example.yaml` says in JSONata, as
 * plain TypeScript. Keys whose value is undefined vanish in JSON.stringify exactly as they do in a
 * JSONata object constructor, so the same field order gives byte-identical envelopes.
 */

const UNIT_OF_MEASURE: Readonly<Record<string, number>> = {
  PCE: 0, M: 1, CM: 2, MM: 3, KG: 4, G: 5, MG: 6, L: 7, CL: 8, ML: 9, GAL: 10, LB: 11, M2: 12, M3: 13,
};
const REQUEST_TYPE_PICK = 1;
const REQUEST_TYPE_PLACE = 2;

/** A failed transform: the adapter answers the route's failure result with this message. */
export class TransformError extends Error {}

export function unitOfMeasure(code: string): number {
  const value = UNIT_OF_MEASURE[code];
  if (value === undefined) throw new TransformError(`unknown unit code "${code}"`);
  return value;
}

function calendarDate(y: number, m: number, d: number, original: string): string {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
    throw new TransformError(`"${original}" is not a calendar date`);
  }
  return date.toISOString().replace('.000Z', 'Z');
}

/** `2026-12-01` → `2026-12-01T00:00:00Z`; null or absent gives nothing. */
function isoFromIsoDate(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!match) throw new TransformError(`"${text}" is not a date yyyy-MM-dd`);
  return calendarDate(Number(match[1]), Number(match[2]), Number(match[3]), text);
}

/** `02.12.2026` → `2026-12-02T00:00:00Z`; null or absent gives nothing. */
function isoFromGermanDate(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  const match = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text.trim());
  if (!match) throw new TransformError(`"${text}" is not a date dd.MM.yyyy`);
  return calendarDate(Number(match[3]), Number(match[2]), Number(match[1]), text);
}

function toJson(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

function requestLine(position: ErpPosition) {
  return {
    itemNumber: position.article?.no,
    itemName: position.article?.text,
    itemDescription: position.article?.longText,
    languageIsoCode: position.article?.lang,
    requestedAmount: position.quantity,
    unitOfMeasure: unitOfMeasure(position.unit),
    lotNumber: position.lot,
    itemExternalIdentifier: position.article?.id,
    requestExternalIdentifier: position.posId,
    requestExternalData: toJson(position.extra),
    requestType: position.direction === 'IN' ? REQUEST_TYPE_PLACE : REQUEST_TYPE_PICK,
    order: position.posNo,
    designatedLocationName: position.bin,
  };
}

export function workOrder(order: ErpSalesOrder) {
  return {
    number: order.docNo,
    externalIdentifier: order.docId === undefined ? undefined : String(order.docId),
    description: order.headerText,
    dueDate: isoFromIsoDate(order.deliveryDate),
    customerRequiredDeliveryDate: isoFromGermanDate(order.wishDate),
    workOrderTypeName: order.orderKind,
    designatedStorageName: order.warehouse,
    deliveryNumber: order.shipment?.no,
    alternativeStartNumber: order.scanCode,
    externalData: toJson(order.custom),
    requests: (order.positions ?? []).map(requestLine),
  };
}

interface Correction {
  headerText?: string;
  positions?: { requestId?: number; article?: string; quantity?: number; cancelled?: boolean }[];
}

/** The answer of a step confirmation: the ERP's correction as an update model, or null for no change. */
export function stepAnswer(correction: Correction | null | undefined, workOrderId: number | undefined) {
  return {
    updateWorkOrderRequest: correction
      ? {
        id: workOrderId,
        description: correction.headerText,
        itemRequests: (correction.positions ?? []).map((p) => ({
          requestId: p.requestId, itemNumber: p.article, requestedAmount: p.quantity, isCancelled: p.cancelled,
        })),
      }
      : null,
  };
}

export interface ExportValuesElement {
  workOrderNumber?: string;
  externalData?: string | null;
}

const EXPORT_KEYS = ['customerName', 'route', 'priority'] as const;

/** Export cell values read from each order's externalData (the JSON the adapter wrote into it). */
export function exportValues(elements: readonly ExportValuesElement[]) {
  return elements.map((element) => {
    const text = element.externalData;
    let data: Record<string, unknown> | undefined;
    if (typeof text === 'string' && text.trim() !== '') {
      try {
        data = JSON.parse(text) as Record<string, unknown>;
      } catch (error) {
        throw new TransformError(`externalData of ${element.workOrderNumber} is not JSON: ${(error as Error).message}`);
      }
    }
    const values: Record<string, string | undefined> = {};
    for (const key of EXPORT_KEYS) {
      const value = data?.[key];
      if (value !== undefined && typeof value !== 'string') throw new TransformError(`${key} of ${element.workOrderNumber} is not text`);
      values[key] = value;
    }
    return { workOrderNumber: element.workOrderNumber, values };
  });
}
