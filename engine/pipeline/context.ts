/**
 * The document every mapping expression sees. `response` and `call` are set while outcome rules run.
 */
export interface CallRecord {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface ExpressionContext {
  readonly input: unknown;
  readonly calls: Record<string, CallRecord>;
  readonly response?: CallRecord;
  readonly call?: string;
}
