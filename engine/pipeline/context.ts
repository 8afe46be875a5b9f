/**
 * The document every mapping expression sees. `response` and `call` are set while outcome rules run;
 * `item` (or `chunk`) and `index` while a fan-out call (forEach) builds and judges one request.
 */
export interface CallRecord {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** SOAP answers: the first element in the Body, and a fault ({ code, string, detail }) whatever the status. */
  readonly result?: unknown;
  readonly fault?: unknown;
  /** Paginated calls: the items of every page, in order, and how many pages were fetched. */
  readonly items?: readonly unknown[];
  readonly pages?: number;
  /** Fan-out calls: the element (or chunk of elements) and its position in the list. */
  readonly item?: unknown;
  readonly chunk?: readonly unknown[];
  readonly index?: number;
}

/** A paginated call's page, as its body and headers read it (`page.number`, …); absent fields have no value yet. */
export interface PageView {
  readonly number?: number;
  readonly offset?: number;
  readonly limit?: number;
  readonly cursor?: unknown;
}

export interface ExpressionContext {
  readonly input: unknown;
  /** A plain call's record, or for a fan-out call the list of its records in input order. */
  readonly calls: Record<string, CallRecord | readonly CallRecord[]>;
  readonly response?: CallRecord;
  readonly call?: string;
  readonly item?: unknown;
  readonly chunk?: readonly unknown[];
  readonly index?: number;
  /** While a paginated call builds one page's request. */
  readonly page?: PageView;
  /** The system's login answer (system.session), when it declares one. */
  readonly session?: unknown;
  /** While a header that changes per attempt is computed: the request being sent (build-request.ts, requestView). */
  readonly request?: { readonly method: string; readonly url: string; readonly query: Readonly<Record<string, string | readonly string[]>> };
}
