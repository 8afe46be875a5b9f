import type { OutboundRequest, OutboundResponse } from '../http/client';
import type { CallRecord } from './context';

/** What fetching a call gives (fetch-call.ts) and paging through it needs (paginate.ts). */

/** The answer of one call (all its pages), before the outcome rules judge it. */
export interface Answer {
  readonly record: CallRecord;
  /** `GET /api/v1/sales-orders` of the last request, for messages. */
  readonly target: string;
  readonly bodyError?: string;
  /** Offers the answer (every page of it) to the call's cache; called once the answer is judged a success. */
  readonly keep?: () => void;
  /** The answer still asked to wait when no further attempt was possible (http/with-retry.ts): why, and how long it asked. */
  readonly waitRefused?: string;
}

/** An answer as the pipeline reads it: an XML answer's body is its view, with a SOAP envelope's result and fault. */
export interface ReadResponse extends OutboundResponse {
  readonly result?: unknown;
  readonly fault?: unknown;
  /** As Answer's: the answer asked to wait and was not waited for. */
  readonly waitRefused?: string;
}

export type SendPage = (request: OutboundRequest) => Promise<ReadResponse>;

/** The record expressions read of one answer (or page). */
export function recordOf(response: ReadResponse): CallRecord {
  const record = { status: response.status, headers: response.headers, body: response.body };
  if (response.result === undefined && response.fault === undefined) return record;
  return { ...record, ...(response.result === undefined ? {} : { result: response.result }), ...(response.fault === undefined ? {} : { fault: response.fault }) };
}
