import { request } from 'undici';

/**
 * How a hand-written twin talks to its ERP: one request, its answer's status and body (JSON parsed, any
 * other type as text). `liveTransport` sends it with undici; the bench hands the twins, as it hands the
 * engine, the ERP's answers fetched before the timing (bench/cases/integrator-mappings.ts), so that only
 * the adapter's own work is timed.
 */
export interface TwinRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query, after the ERP's origin. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface TwinResponse {
  readonly status: number;
  readonly body: unknown;
}

export type Transport = (request: TwinRequest) => Promise<TwinResponse>;

export function liveTransport(origin: string): Transport {
  return async ({ method, path, headers, body }) => {
    const response = await request(origin + path, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': headers?.['content-type'] ?? 'application/json' }) }, body });
    const type = String(response.headers['content-type'] ?? '');
    return { status: response.statusCode, body: type.includes('json') ? await response.body.json() : await response.body.text() };
  };
}

/** The platform's request as the twins take it: the route's path, its query, its JSON body. */
export interface PlatformRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** The contract's envelope, written in its field order; `data` only on data routes. */
export function envelope(success: boolean, result: number, data?: unknown, externalMessage: string | null = null, problems: readonly { path: string; message: string }[] | null = null): string {
  const answer: Record<string, unknown> = { isResultSuccess: success, result, validationStatus: problems, externalMessage };
  if (data !== undefined) answer.data = data;
  return JSON.stringify(answer);
}

/** The ERP said no: the engine's answer names the call and says so in validationStatus, and passes the ERP's words on. */
export class Refused extends Error {
  constructor(readonly call: string, message: string) {
    super(message);
  }
}

function refusedEnvelope(refusal: Refused, result: number, data?: null): string {
  return envelope(false, result, data, refusal.message, [{ path: `calls.${refusal.call}`, message: `the external system refused: ${refusal.message}` }]);
}

/** The contract's result numbers of the routes the corpus maps. */
export const RESULTS = {
  list: { Succeed: 2, AdapterApiCallFailed: 4 },
  code: { Succeed: 1, WorkOrderDoesNotExist: 2, AdapterApiCallFailed: 4 },
  putWall: { Succeed: 1, AdapterApiCallFailed: 3 },
} as const;

/** The platform's unit and request type numbers (the contract's enums). */
export const UNIT_OF_MEASURE: Readonly<Record<string, number>> = { Piece: 0, Meter: 1, Kilogram: 4, Liter: 7 };
export const REQUEST_TYPE = { PickItem: 1, PlaceItem: 2 } as const;

/** A twin's three routes. */
export interface TwinRoutes<Event> {
  list(): Promise<string>;
  byCode(code: string): Promise<string>;
  putWall(event: Event): Promise<string>;
}

/**
 * The platform's request to the twin's route, and an ERP's refusal as the route's AdapterApiCallFailed
 * envelope (what each hand-written adapter does around its routes, written once).
 */
export function routeTwin<Event>(routes: TwinRoutes<Event>): { handle(platform: PlatformRequest): Promise<string> } {
  return {
    async handle(platform) {
      const failed = platform.path === '/WorkOrders' ? RESULTS.list.AdapterApiCallFailed : platform.path === '/WorkOrders/Code' ? RESULTS.code.AdapterApiCallFailed : RESULTS.putWall.AdapterApiCallFailed;
      try {
        if (platform.path === '/WorkOrders') return await routes.list();
        if (platform.path === '/WorkOrders/Code') return await routes.byCode(platform.query?.Code ?? '');
        return await routes.putWall(platform.body as Event);
      } catch (error) {
        if (error instanceof Refused) return refusedEnvelope(error, failed, platform.method === 'GET' ? null : undefined);
        throw error;
      }
    },
  };
}
