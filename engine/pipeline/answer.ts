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
}

export type SendPage = (request: OutboundRequest) => Promise<OutboundResponse>;
