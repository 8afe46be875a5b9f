/**
 * A stand-in of an Odoo 17 ERP over JSON-RPC (a real HTTP server on 127.0.0.1): everything is
 * `POST /jsonrpc`, every answer is HTTP 200, and an error comes back inside it as
 * `{"error": {"code": 200, "message": "Odoo Server Error", "data": {"name": "odoo.exceptions.…", "message": …}}}`.
 * `common.login(db, user, key)` gives the uid (false for a wrong key); `object.execute_kw(db, uid, key,
 * model, method, args, kwargs)` reads (search_read with offset/limit in kwargs, read) and writes (the
 * `wms_*` methods of sale.order, as a customer module would add them). Empty fields are `false`.
 * Switches on the returned object inject the faults integrators meet; every call is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { matches, pick, seedModels, type Models, type OdooRecord } from './jsonrpc-data';

export const ODOO_DB = 'wms';
export const ODOO_USER = 'wms-bot';
export const ODOO_UID = 2;

export interface RpcCall {
  readonly service: string;
  /** `login`, or the model's method for execute_kw (search_read, wms_putwall_place, ...). */
  readonly method: string;
  readonly model?: string;
  readonly args: readonly unknown[];
  readonly kwargs: Readonly<Record<string, unknown>>;
}

/** A change a wms_* method made: the order(s) it names and the values it was given. */
export interface OdooWrite {
  readonly method: string;
  readonly orders: readonly string[];
  readonly values: unknown;
}

export interface JsonRpcErp {
  /** The server's origin; the endpoint is `${url}/jsonrpc`. */
  readonly url: string;
  readonly calls: RpcCall[];
  readonly writes: OdooWrite[];
  readonly models: Models;
  /** Number of successful logins. */
  logins: number;
  /** The key the ERP accepts now; changing it revokes the one the engine holds. */
  apiKey: string;
  /** Orders whose writes are refused for good (UserError: the order is locked). */
  readonly lockedOrders: Set<string>;
  /** Orders whose writes meet a row lock held by another transaction: a refusal that passes. */
  readonly busyOrders: Set<string>;
  /** Every wms_* write is refused (ValidationError). */
  refuseWrites: boolean;
  /** Reads of this model are refused (AccessError). */
  failingModel?: string;
  /** search_read ignores its offset, so every page is the first. */
  ignoreOffset: boolean;
  /** A login's session ends after this many execute_kw calls (SessionExpiredException). */
  sessionCalls?: number;
  /** An AccessDenied quotes the key it got, as some customer modules log and answer it. */
  quoteKey: boolean;
  /** execute_kw calls of each model and method: `count('sale.order', 'search_read')`. */
  count(model?: string, method?: string): number;
  close(): Promise<void>;
}

/** An Odoo exception as JSON-RPC carries it: raised by a handler, answered inside a 200. */
class OdooError extends Error {
  constructor(readonly exception: string, message: string, readonly code = 200) {
    super(message);
  }
}

const accessDenied = (quoted?: unknown) => new OdooError('odoo.exceptions.AccessDenied', quoted === undefined ? 'Access Denied' : `Access Denied: the key ${String(quoted)} is not valid for ${ODOO_USER}`);

function orderNamed(models: Models, name: unknown): OdooRecord {
  const order = models['sale.order'].find((record) => record.name === name);
  if (!order) throw new OdooError('odoo.exceptions.MissingError', `Sale order ${String(name)} does not exist or has been deleted.`);
  return order;
}

/** Units of a product in stock, over every quant. */
function inStock(models: Models, productId: unknown): number {
  return models['stock.quant'].filter((quant) => (quant.product_id as unknown[])[0] === productId).reduce((sum, quant) => sum + (quant.quantity as number), 0);
}

export async function startJsonRpcErp(options: { extraOrders?: number; apiKey?: string } = {}): Promise<JsonRpcErp> {
  const models = seedModels(options.extraOrders);
  const calls: RpcCall[] = [];
  const writes: OdooWrite[] = [];
  let callsSinceLogin = 0;
  const erp = {
    logins: 0, apiKey: options.apiKey ?? 'odoo-key-1', lockedOrders: new Set<string>(), busyOrders: new Set<string>(),
    refuseWrites: false, failingModel: undefined as string | undefined, ignoreOffset: false, sessionCalls: undefined as number | undefined, quoteKey: false,
  };

  /** The wms_* methods: args[0] names the order (or a list of them), args[1] holds the values. */
  const write = (method: string, args: readonly unknown[]): unknown => {
    const names = (Array.isArray(args[0]) ? args[0] : [args[0]]) as unknown[];
    const orders = names.map((name) => orderNamed(models, name));
    for (const order of orders) {
      if (erp.lockedOrders.has(order.name as string)) throw new OdooError('odoo.exceptions.UserError', `The order ${String(order.name)} is locked: unlock it before changing it.`);
      if (erp.busyOrders.has(order.name as string)) throw new OdooError('psycopg2.errors.LockNotAvailable', 'could not obtain lock on row in relation "sale_order"');
    }
    if (erp.refuseWrites) throw new OdooError('odoo.exceptions.ValidationError', `The operation ${method} cannot be completed: the warehouse interface is switched off in the settings.`);
    const values = (args[1] ?? {}) as Record<string, unknown>;
    if (method === 'wms_attach' && values.release !== true) {
      const holder = writes.find((done) => done.method === 'wms_attach' && (done.values as Record<string, unknown>).container === values.container && !done.orders.includes(orders[0].name as string));
      if (holder) throw new OdooError('odoo.exceptions.UserError', `Container ${String(values.container)} is already attached to ${holder.orders[0]}.`);
    }
    writes.push({ method, orders: orders.map((order) => order.name as string), values });
    if (method !== 'wms_confirm_step') return true;
    // A step confirmation answers the stock that is left when it is below what was asked: false when there is enough.
    const line = models['sale.order.line'].find((candidate) => candidate.id === values.line_id);
    const available = line ? inStock(models, (line.product_id as unknown[])[0]) : 0;
    return { available: typeof values.quantity === 'number' && values.quantity > available ? available : false };
  };

  const read = (model: string, method: string, args: readonly unknown[], kwargs: Readonly<Record<string, unknown>>): unknown => {
    const records = models[model];
    if (!records) throw new OdooError('builtins.KeyError', `'${model}'`);
    if (erp.failingModel === model) throw new OdooError('odoo.exceptions.AccessError', `You are not allowed to access '${model}' records. This operation is allowed for the following groups: Inventory / Administrator. Contact your administrator to request access if necessary.`);
    if (method === 'read') {
      const ids = args[0] as unknown[];
      return records.filter((record) => ids.includes(record.id)).map((record) => pick(record, kwargs.fields ?? args[1]));
    }
    if (method !== 'search_read') throw new OdooError('builtins.AttributeError', `The method '${model}.${method}' does not exist`);
    const found = records.filter((record) => matches(record, (kwargs.domain ?? args[0] ?? []) as unknown[]));
    const offset = erp.ignoreOffset ? 0 : Number(kwargs.offset ?? 0);
    const limit = kwargs.limit === undefined || kwargs.limit === false ? undefined : Number(kwargs.limit);
    return found.slice(offset, limit === undefined ? undefined : offset + limit).map((record) => pick(record, kwargs.fields));
  };

  const executeKw = (args: readonly unknown[]): unknown => {
    const [db, uid, key, model, method, positional = [], kwargs = {}] = args as [unknown, unknown, unknown, string, string, unknown[], Record<string, unknown>];
    calls.push({ service: 'object', method, model, args: positional, kwargs });
    if (db !== ODOO_DB || uid !== ODOO_UID || key !== erp.apiKey) throw accessDenied(erp.quoteKey ? key : undefined);
    callsSinceLogin += 1;
    if (erp.sessionCalls !== undefined && callsSinceLogin > erp.sessionCalls) throw new OdooError('odoo.http.SessionExpiredException', 'Session expired', 100);
    return method.startsWith('wms_') && model === 'sale.order' ? write(method, positional) : read(model, method, positional, kwargs);
  };

  const login = (args: readonly unknown[]): unknown => {
    calls.push({ service: 'common', method: 'login', args: [args[0], args[1]], kwargs: {} });
    if (args[0] !== ODOO_DB || args[1] !== ODOO_USER || args[2] !== erp.apiKey) return false;
    erp.logins += 1;
    callsSinceLogin = 0;
    return ODOO_UID;
  };

  const answer = (text: string): unknown => {
    const { id = null, params } = JSON.parse(text) as { id?: unknown; params?: { service?: string; method?: string; args?: unknown[] } };
    try {
      if (params?.service === 'common' && params.method === 'login') return { jsonrpc: '2.0', id, result: login(params.args ?? []) };
      if (params?.service === 'object' && params.method === 'execute_kw') return { jsonrpc: '2.0', id, result: executeKw(params.args ?? []) };
      throw new OdooError('builtins.NotImplementedError', `Service ${String(params?.service)} has no method ${String(params?.method)}`);
    } catch (error) {
      if (!(error instanceof OdooError)) throw error;
      const message = error.code === 100 ? 'Odoo Session Expired' : 'Odoo Server Error';
      return { jsonrpc: '2.0', id, error: { code: error.code, message, data: { name: error.exception, debug: `Traceback (most recent call last):\n${error.exception}: ${error.message}`, message: error.message, arguments: [error.message], context: {} } } };
    }
  };

  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => { text += chunk; });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/jsonrpc') {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(text)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(erp, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls, writes, models,
    count: (model?: string, method?: string) => calls.filter((call) => call.service === 'object' && (model === undefined || call.model === model) && (method === undefined || call.method === method)).length,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}
