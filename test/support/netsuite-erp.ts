/**
 * A stand-in of a NetSuite account (a real HTTP server on 127.0.0.1) as token-based authentication
 * meets it: every request carries `Authorization: OAuth realm=…, oauth_…` signed with HMAC-SHA256 over
 * the method, the URL and every query parameter (RFC 5849). The account verifies the signature with a
 * verifier of its own (not the engine's code), refuses a nonce it has seen and a timestamp more than
 * 5 minutes off (401 INVALID_LOGIN, as NetSuite answers), and answers 429 SSS_REQUEST_LIMIT_EXCEEDED,
 * without Retry-After, to a request over its limit of requests in flight.
 *
 * - SuiteQL: `POST /services/rest/query/v1/suiteql?limit=&offset=` with `{"q": "SELECT … FROM … WHERE …"}`
 *   (a small subset: columns, one table, `=`/`IN` conditions joined by AND, ORDER BY one column); every
 *   value a string, as NetSuite gives them; pages with links, hasMore, offset, totalResults.
 * - REST record service: `GET /services/rest/record/v1/salesOrder?q=…&limit=&offset=` answers only ids
 *   (one request per record follows), `GET …/salesOrder/{id}?expandSubResources=true` the record.
 * - A RESTlet: `POST /app/site/hosting/restlet.nl?script=customscript_wms_status&deploy=1`, answering
 *   `{"success": true}` or `{"success": false, "error": {…}}` in a 200.
 * Every route answers after `delayMs` (a few milliseconds), so requests overlap as they would.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const NS_ACCOUNT = '1234567_SB1';
export const NS_CREDENTIALS = {
  consumerKey: 'ns-consumer-key-1', consumerSecret: 'ns-consumer-secret-1', token: 'ns-token-id-1', tokenSecret: 'ns-token-secret-1',
} as const;

type Row = Readonly<Record<string, string>>;

interface SalesOrder {
  readonly id: number;
  readonly tranId: string;
  readonly memo: string;
  readonly shipDate: string;
  readonly location: string;
  readonly otherRefNum: string;
  readonly putWall?: string;
  readonly lines: readonly { readonly line: number; readonly item: number; readonly description: string; readonly quantity: number; readonly units: string }[];
}

function seed(extraOrders: number, extraItems: number): { orders: SalesOrder[]; items: Row[] } {
  const items: Row[] = [
    { id: '201', itemid: 'A-100', displayname: 'Hex bolt M8', description: 'Zinc plated, 40 mm', weight: '0.012', unitstypename: 'Units' },
    { id: '202', itemid: 'A-200', displayname: 'Washer M8', description: "O'Brien's pattern", weight: '0.002', unitstypename: 'Units' },
    { id: '203', itemid: 'B-300', displayname: 'Cable', description: 'Copper, by the metre', weight: '0.1', unitstypename: 'm' },
  ];
  for (let index = 0; index < extraItems; index += 1) items.push({ id: String(300 + index), itemid: `X-${index}`, displayname: `Extra item ${index}`, description: '', weight: '1', unitstypename: 'Units' });
  const orders: SalesOrder[] = [
    { id: 101, tranId: 'SO-1001', memo: 'Workshop supplies', shipDate: '2026-12-15', location: 'WH', otherRefNum: 'PO-77', putWall: 'PW-01', lines: [{ line: 1, item: 201, description: 'Hex bolt M8', quantity: 12, units: 'Units' }, { line: 2, item: 202, description: 'Washer M8', quantity: 24, units: 'Units' }] },
    { id: 102, tranId: 'SO-1002', memo: 'Site cabling', shipDate: '2026-12-16', location: 'WH', otherRefNum: 'PO-78', putWall: 'PW-01', lines: [{ line: 1, item: 203, description: 'Cable', quantity: 50, units: 'm' }] },
    { id: 103, tranId: 'SO-1003', memo: 'Spare parts', shipDate: '2026-12-17', location: 'WH', otherRefNum: 'PO-79', lines: [{ line: 1, item: 201, description: 'Hex bolt M8', quantity: 2, units: 'Units' }] },
  ];
  // The extra orders stand on put wall PW-02: a long id-only list for the fan-out.
  for (let index = 0; index < extraOrders; index += 1) orders.push({ id: 1000 + index, tranId: `SO-9${String(index).padStart(3, '0')}`, memo: `Extra ${index}`, shipDate: '2026-12-20', location: 'WH', otherRefNum: '', putWall: 'PW-02', lines: [{ line: 1, item: 201, description: 'Hex bolt M8', quantity: 1, units: 'Units' }] });
  return { orders, items };
}

/** The SuiteQL tables, as rows of strings. */
function tables(orders: readonly SalesOrder[], items: readonly Row[]): Record<string, readonly Row[]> {
  return {
    transaction: orders.map((order) => ({ id: String(order.id), tranid: order.tranId, memo: order.memo, shipdate: order.shipDate, location: order.location, otherrefnum: order.otherRefNum, type: 'SalesOrd' })),
    transactionline: orders.flatMap((order) => order.lines.map((line) => ({ transaction: String(order.id), linesequencenumber: String(line.line), item: String(line.item), memo: line.description, quantity: String(line.quantity), units: line.units }))),
    item: items,
  };
}

/** RFC 5849 3.6, written for the stand-in on its own (the engine's signer is what it checks). */
const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

function oauthFields(header: string | undefined): Map<string, string> | undefined {
  const match = /^OAuth\s+(.+)$/.exec(header ?? '');
  if (!match) return undefined;
  const fields = new Map<string, string>();
  for (const part of match[1]!.split(/,\s*/)) {
    const field = /^([\w]+)="([^"]*)"$/.exec(part.trim());
    if (!field) return undefined;
    fields.set(field[1]!, decodeURIComponent(field[2]!));
  }
  return fields;
}

function expectedSignature(method: string, url: URL, fields: ReadonlyMap<string, string>, form: string | undefined): string {
  const params: [string, string][] = [];
  for (const [name, value] of new URLSearchParams(url.search)) params.push([name, value]);
  if (form !== undefined) for (const [name, value] of new URLSearchParams(form)) params.push([name, value]);
  for (const [name, value] of fields) if (name !== 'realm' && name !== 'oauth_signature') params.push([name, value]);
  const normalized = params.map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`).sort().join('&');
  const base = `${method}&${rfc3986(`${url.protocol}//${url.host}${url.pathname}`)}&${rfc3986(normalized)}`;
  return createHmac('sha256', `${NS_CREDENTIALS.consumerSecret}&${NS_CREDENTIALS.tokenSecret}`).update(base).digest('base64');
}

class NetSuiteError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

const invalidLogin = (why: string) => new NetSuiteError(401, 'INVALID_LOGIN', `Invalid login attempt. For more details, see the Login Audit Trail in the NetSuite UI at Setup > Users/Roles > User Management > View Login Audit Trail. (${why})`);

/** The subset of SuiteQL the stand-in reads: `SELECT a, b FROM t [WHERE c = 'x' AND d IN (1, 2)] [ORDER BY c]`. */
function suiteql(query: string, data: Record<string, readonly Row[]>): Row[] {
  const match = /^\s*SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+(\w+))?\s*$/is.exec(query);
  if (!match) throw new NetSuiteError(400, 'INVALID_PARAMETER', `Invalid search query. Detailed unprocessed description follows. Search error occurred: Invalid or unsupported search. (${query.slice(0, 80)})`);
  const [, columns, table, where, order] = match;
  const rows = data[table!.toLowerCase()];
  if (!rows) throw new NetSuiteError(400, 'INVALID_PARAMETER', `Invalid search query. Search error occurred: Record '${table}' was not found.`);
  const conditions = (where ?? '').split(/\s+AND\s+/i).filter((text) => text.trim() !== '').map((text) => {
    const equal = /^(\w+)\s*=\s*(?:'((?:[^']|'')*)'|(\d+))$/i.exec(text.trim());
    if (equal) return (row: Row) => row[equal[1]!.toLowerCase()] === (equal[2] === undefined ? equal[3] : equal[2].replace(/''/g, "'"));
    const inList = /^(\w+)\s+IN\s*\(([^)]*)\)$/i.exec(text.trim());
    if (inList) {
      const values = inList[2]!.split(',').map((value) => value.trim().replace(/^'(.*)'$/, '$1'));
      return (row: Row) => values.includes(row[inList[1]!.toLowerCase()] ?? '');
    }
    throw new NetSuiteError(400, 'INVALID_PARAMETER', `Invalid search query. Search error occurred: Invalid or unsupported search. (${text})`);
  });
  const wanted = columns!.split(',').map((column) => column.trim().toLowerCase());
  for (const column of wanted) if (column !== '*' && !(column in (rows[0] ?? {}))) throw new NetSuiteError(400, 'INVALID_PARAMETER', `Invalid search query. Search error occurred: Field '${column}' for record '${table}' was not found.`);
  const found = rows.filter((row) => conditions.every((condition) => condition(row)));
  if (order) found.sort((a, b) => Number(a[order.toLowerCase()]) - Number(b[order.toLowerCase()]));
  return found.map((row) => (wanted.includes('*') ? { ...row } : Object.fromEntries(wanted.map((column) => [column, row[column]!]))));
}

export interface NetSuiteErp {
  /** The account's origin (the engine's system.baseUrl). */
  readonly url: string;
  /** Requests that passed authentication, by route: `suiteql`, `record-list`, `record`, `restlet`. */
  readonly served: string[];
  /** Every 401 and why (a bad signature, a reused nonce, a timestamp off). */
  readonly authFailures: string[];
  /** Every 429 for more requests in flight than the limit. */
  rateLimited: number;
  /** Most requests in flight at once. */
  peakInFlight: number;
  /** Every nonce seen, in order. */
  readonly nonces: string[];
  /** The query strings SuiteQL was asked with (limit and offset), in order. */
  readonly suiteqlPages: string[];
  /** The statuses the RESTlet was sent. */
  readonly statuses: unknown[];
  /** Requests in flight the account allows (NetSuite: 5 for a standard account); more get 429. */
  concurrencyLimit: number;
  /** The next this many authenticated requests get 429 whatever the load. */
  rateLimitNext: number;
  /** Milliseconds each answer takes. */
  delayMs: number;
  /** The account's clock, in seconds, against which a timestamp is checked. */
  now: () => number;
  /** A 401 repeats the Authorization header it refused (some ERPs' error pages do). */
  echoAuthorization: boolean;
  close(): Promise<void>;
}

export async function startNetSuiteErp(options: { extraOrders?: number; extraItems?: number; concurrencyLimit?: number; delayMs?: number } = {}): Promise<NetSuiteErp> {
  const { orders, items } = seed(options.extraOrders ?? 0, options.extraItems ?? 0);
  const data = tables(orders, items);
  const seen = new Set<string>();
  let inFlight = 0;
  const erp = {
    served: [] as string[], authFailures: [] as string[], rateLimited: 0, peakInFlight: 0, nonces: [] as string[], suiteqlPages: [] as string[], statuses: [] as unknown[],
    concurrencyLimit: options.concurrencyLimit ?? 5, rateLimitNext: 0, delayMs: options.delayMs ?? 2, now: () => Math.floor(Date.now() / 1000), echoAuthorization: false,
  };

  const authenticate = (req: http.IncomingMessage, url: URL, form: string | undefined): void => {
    const fields = oauthFields(req.headers.authorization);
    if (!fields) throw invalidLogin('no OAuth header');
    if (fields.get('realm') !== NS_ACCOUNT) throw invalidLogin(`realm ${fields.get('realm') ?? 'missing'}`);
    if (fields.get('oauth_consumer_key') !== NS_CREDENTIALS.consumerKey || fields.get('oauth_token') !== NS_CREDENTIALS.token) throw invalidLogin('unknown consumer or token');
    if (fields.get('oauth_signature_method') !== 'HMAC-SHA256') throw invalidLogin(`signature method ${fields.get('oauth_signature_method') ?? 'missing'}`);
    const nonce = fields.get('oauth_nonce') ?? '';
    erp.nonces.push(nonce);
    if (!/^[A-Za-z0-9]{6,64}$/.test(nonce)) throw invalidLogin('nonce not 6-64 letters and digits');
    if (Math.abs(Number(fields.get('oauth_timestamp')) - erp.now()) > 300) throw invalidLogin('timestamp more than 5 minutes off');
    if (fields.get('oauth_signature') !== expectedSignature(req.method ?? 'GET', url, fields, form)) throw invalidLogin('signature does not match');
    // Checked last: a request with a wrong signature does not spend its nonce.
    if (seen.has(nonce)) throw invalidLogin('nonce used before');
    seen.add(nonce);
  };

  const answer = (req: http.IncomingMessage, url: URL, text: string): unknown => {
    const path = url.pathname;
    if (req.method === 'POST' && path === '/services/rest/query/v1/suiteql') {
      if (req.headers.prefer !== 'transient') throw new NetSuiteError(400, 'INVALID_HEADER', 'The request must have the header Prefer: transient.');
      const limit = Number(url.searchParams.get('limit') ?? 1000);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      erp.suiteqlPages.push(url.search);
      erp.served.push('suiteql');
      const rows = suiteql(String((JSON.parse(text || '{}') as { q?: unknown }).q ?? ''), data);
      const page = rows.slice(offset, offset + limit);
      return { links: [], count: page.length, hasMore: offset + limit < rows.length, items: page.map((row) => ({ links: [], ...row })), offset, totalResults: rows.length };
    }
    const record = /^\/services\/rest\/record\/v1\/salesOrder(?:\/(\d+))?$/.exec(path);
    if (req.method === 'GET' && record) {
      if (record[1] === undefined) {
        erp.served.push('record-list');
        const limit = Number(url.searchParams.get('limit') ?? 1000);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const wall = /^custbody_putwall IS "([^"]*)"$/.exec(url.searchParams.get('q') ?? '');
        const found = orders.filter((order) => !wall || order.putWall === wall[1]);
        const page = found.slice(offset, offset + limit);
        // The record service lists ids only: each record is one more request.
        return { links: [], count: page.length, hasMore: offset + limit < found.length, items: page.map((order) => ({ links: [{ rel: 'self', href: `${url.origin}${path}/${order.id}` }], id: String(order.id) })), offset, totalResults: found.length };
      }
      erp.served.push('record');
      const order = orders.find((candidate) => String(candidate.id) === record[1]);
      if (!order) throw new NetSuiteError(404, 'NONEXISTENT_ID', `The record instance does not exist. Provide a valid record instance ID.`);
      const lines = order.lines.map((line) => ({ line: line.line, item: { id: String(line.item), refName: items.find((item) => item.id === String(line.item))?.itemid }, description: line.description, quantity: line.quantity, units: line.units }));
      const expanded = url.searchParams.get('expandSubResources') === 'true';
      return {
        links: [], id: String(order.id), tranId: order.tranId, memo: order.memo, shipDate: order.shipDate, otherRefNum: order.otherRefNum || undefined,
        location: { id: '1', refName: order.location }, item: expanded ? { links: [], items: lines, totalResults: lines.length } : { links: [{ rel: 'self', href: `${url.origin}${path}/item` }] },
      };
    }
    if (req.method === 'POST' && path === '/app/site/hosting/restlet.nl' && url.searchParams.get('script') === 'customscript_wms_status' && url.searchParams.get('deploy') === '1') {
      erp.served.push('restlet');
      const body = JSON.parse(text || '{}') as { tranId?: unknown; status?: unknown };
      if (!orders.some((order) => order.tranId === body.tranId)) return { success: false, error: { code: 'RCRD_DSNT_EXIST', message: `That record does not exist. tranId: ${String(body.tranId)}` } };
      erp.statuses.push(body);
      return { success: true };
    }
    throw new NetSuiteError(404, 'NONEXISTENT_ID', `The record type or route ${req.method} ${path} does not exist.`);
  };

  const errorBody = (error: NetSuiteError) => ({
    type: 'https://www.rfc-editor.org/rfc/rfc9110.html', title: error.status === 429 ? 'Too Many Requests' : error.status === 401 ? 'Unauthorized' : 'Bad Request', status: error.status,
    'o:errorDetails': [{ detail: error.message, 'o:errorCode': error.code }],
  });

  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => { text += chunk; });
    req.on('end', () => {
      inFlight += 1;
      erp.peakInFlight = Math.max(erp.peakInFlight, inFlight);
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      let status = 200;
      let body: unknown;
      try {
        const form = /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '') ? text : undefined;
        authenticate(req, url, form);
        if (erp.rateLimitNext > 0 || inFlight > erp.concurrencyLimit) {
          erp.rateLimitNext = Math.max(0, erp.rateLimitNext - 1);
          erp.rateLimited += 1;
          throw new NetSuiteError(429, 'SSS_REQUEST_LIMIT_EXCEEDED', 'Request blocked by the concurrency limit of this account (SSS_REQUEST_LIMIT_EXCEEDED).');
        }
        body = answer(req, url, text);
      } catch (error) {
        if (!(error instanceof NetSuiteError)) throw error;
        if (error.status === 401) erp.authFailures.push(error.message.replace(/^.*\((.*)\)$/, '$1'));
        status = error.status;
        body = errorBody(error.status === 401 && erp.echoAuthorization ? new NetSuiteError(401, error.code, `${error.message} Authorization: ${req.headers.authorization ?? ''}`) : error);
      }
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(status, { 'content-type': 'application/vnd.oai.openapi+json; charset=UTF-8' }).end(JSON.stringify(body));
      }, erp.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(erp, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}
