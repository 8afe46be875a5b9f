/**
 * The ERP's error type. Every failure answers
 * `{"error":{"code":"...","message":"..."}}` with the given HTTP status.
 */
export class ErpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ErpError';
  }
}

export interface ErpErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ErpErrorBody {
  return { error: { code, message } };
}

/** Error codes for HTTP errors raised by Koa middleware (body parser, router). */
const STATUS_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  501: 'NOT_IMPLEMENTED',
};

/** Status and body for anything thrown while handling a request. */
export function toErrorResponse(err: unknown): { status: number; body: ErpErrorBody } {
  if (err instanceof ErpError) return { status: err.status, body: errorBody(err.code, err.message) };
  const http = err as { status?: unknown; expose?: unknown; message?: unknown };
  const known = typeof http?.status === 'number' ? STATUS_CODES[http.status] : undefined;
  if (typeof http?.status === 'number' && (known !== undefined || (http.status >= 400 && http.expose === true))) {
    const code = known ?? 'HTTP_ERROR';
    const message = http.status === 400 ? `Malformed request body: ${String(http.message)}` : String(http.message);
    return { status: http.status, body: errorBody(code, message) };
  }
  return { status: 500, body: errorBody('INTERNAL_ERROR', 'Internal ERP error') };
}
