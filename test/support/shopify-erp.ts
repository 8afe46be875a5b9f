/**
 * A Shopify-style stand-in ERP over real HTTP: one POST /admin/api/2025-01/graphql.json, its GraphQL
 * executed by the graphql package against examples/shopify/schema.graphql (no hand parsing), with
 * Shopify's cost accounting:
 * - a leaky bucket of 1,000 points restored at 50 a second, shared by every request;
 * - a query's requested cost, worked out before it runs: a scalar 0, an object 1 plus its fields, a
 *   connection 2 plus `first` times one node (pageInfo free), a mutation 10;
 * - a query that costs more than is left is answered HTTP 200 THROTTLED with the bucket's state in
 *   extensions.cost.throttleStatus, and nothing runs; one above 1,000 is MAX_COST_EXCEEDED;
 * - after it ran, the difference to its actual cost (the nodes really returned) is given back.
 * Connections page by cursor (nodes, edges, pageInfo); a fulfillment of an order already fulfilled is
 * refused in userErrors; a wrong access token gets a 401 whose errors is a plain string.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  buildSchema, execute, getNamedType, GraphQLInt, isLeafType, isObjectType, parse, validate, valueFromAST,
  type DocumentNode, type FieldNode, type GraphQLObjectType, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import { PROJECT_ROOT } from '../../engine/paths';
import { articleImage } from '../../examples/erp/png';

export const SHOPIFY_SCHEMA = path.join(PROJECT_ROOT, 'examples', 'shopify', 'schema.graphql');
export const SHOPIFY_TOKEN = 'shpat_stand-in-token';
export const SHOPIFY_PATH = '/admin/api/2025-01/graphql.json';

interface LineItem {
  readonly id: string;
  readonly sku: string;
  readonly name: string;
  readonly quantity: number;
  readonly variantTitle: string | null;
}

interface Order {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly processedAt: string | null;
  readonly note: string | null;
  readonly poNumber: string | null;
  displayFulfillmentStatus: string;
  readonly lines: readonly LineItem[];
}

interface Variant {
  readonly id: string;
  readonly sku: string;
  readonly title: string;
  readonly barcode: string | null;
  readonly weight: number | null;
  readonly image: { readonly url: string; readonly altText: string | null } | null;
}

/** How many lines open order n (1..30) has: from 1 to 72. */
export function linesOf(n: number): number {
  if (n === 1) return 1;
  if (n === 2) return 72;
  return 1 + ((n * 29) % 72);
}

function makeOrders(openOrders: number): Order[] {
  const orders: Order[] = [];
  for (let n = 1; n <= openOrders + 3; n += 1) {
    const open = n <= openOrders;
    const count = open ? linesOf(n) : 2;
    const lines = Array.from({ length: count }, (_, j) => ({
      id: `gid://shopify/LineItem/${n * 1000 + j}`,
      sku: `SKU-${100 + ((n * 7 + j) % 40)}`,
      name: `Article ${100 + ((n * 7 + j) % 40)}`,
      quantity: 1 + ((n + j) % 5),
      // GraphQL says null where REST leaves a field out.
      variantTitle: j % 3 === 0 ? `Size ${1 + (j % 4)}` : null,
    }));
    orders.push({
      id: `gid://shopify/Order/${5000 + n}`,
      name: `#${1000 + n}`,
      createdAt: `2026-11-${String(1 + (n % 27)).padStart(2, '0')}T08:00:00Z`,
      processedAt: n % 4 === 0 ? null : `2026-11-${String(1 + (n % 27)).padStart(2, '0')}T09:30:00Z`,
      note: n % 2 === 0 ? null : `Gift wrap order ${n}`,
      poNumber: n % 5 === 0 ? `PO-${n}` : null,
      displayFulfillmentStatus: open ? 'UNFULFILLED' : 'FULFILLED',
      lines,
    });
  }
  return orders;
}

function makeVariants(cdn: string): Variant[] {
  return Array.from({ length: 40 }, (_, k) => ({
    id: `gid://shopify/ProductVariant/${7000 + k}`,
    sku: `SKU-${100 + k}`,
    title: `Article ${100 + k}`,
    barcode: k % 2 === 0 ? `40000000${String(100 + k)}` : null,
    weight: k % 3 === 0 ? null : 0.25 * (k + 1),
    image: k % 4 === 3 ? null : { url: `${cdn}/s/files/1/products/${k === 38 ? 'moved' : k === 37 ? 'away' : `sku-${100 + k}`}.png`, altText: null },
  }));
}

const cursorOf = (kind: string, index: number) => Buffer.from(`${kind}:${index}`).toString('base64url');
function indexAfter(kind: string, after: string | null | undefined): number {
  if (!after) return 0;
  const text = Buffer.from(after, 'base64url').toString('utf8');
  const split = text.lastIndexOf(':');
  const index = text.slice(split + 1);
  if (text.slice(0, split) !== kind || !/^\d+$/.test(index)) throw new Error(`Invalid cursor: ${after}`);
  return Number(index) + 1;
}

function connection<T>(kind: string, list: readonly T[], first: number, after?: string | null) {
  if (first < 0 || first > 250) throw new Error('first must be between 0 and 250');
  const start = indexAfter(kind, after);
  const page = list.slice(start, start + first);
  const edges = page.map((node, offset) => ({ node, cursor: cursorOf(kind, start + offset) }));
  return { nodes: page, edges, pageInfo: { hasNextPage: start + first < list.length, endCursor: edges.at(-1)?.cursor ?? null } };
}

/** The requested cost (`data` undefined) or the actual cost (`data` the result) of a selection. */
function costOf(selection: SelectionSetNode | undefined, type: GraphQLObjectType, variables: Record<string, unknown>, data?: unknown): number {
  let total = 0;
  for (const node of selection?.selections ?? []) {
    if (node.kind !== 'Field' || node.name.value.startsWith('__')) continue;
    const field = type.getFields()[node.name.value];
    if (!field) continue;
    const named = getNamedType(field.type);
    if (isLeafType(named) || !isObjectType(named)) continue;
    const value = data === undefined ? undefined : (data as Record<string, unknown> | null)?.[node.alias?.value ?? node.name.value];
    if (named.name === 'PageInfo') continue;
    if (named.name.endsWith('Connection')) total += connectionCost(node, named, variables, data === undefined ? undefined : value);
    else if (data === undefined) total += 1 + costOf(node.selectionSet, named, variables);
    else if (Array.isArray(value)) total += value.reduce((sum: number, item) => sum + 1 + costOf(node.selectionSet, named, variables, item), 0);
    else if (value !== null && value !== undefined) total += 1 + costOf(node.selectionSet, named, variables, value);
  }
  return total;
}

function connectionCost(node: FieldNode, type: GraphQLObjectType, variables: Record<string, unknown>, value: unknown): number {
  const firstArgument = node.arguments?.find((argument) => argument.name.value === 'first');
  const first = firstArgument ? Number(valueFromAST(firstArgument.value, GraphQLInt, variables) ?? 0) : 0;
  const nodesField = node.selectionSet?.selections.find((s): s is FieldNode => s.kind === 'Field' && s.name.value === 'nodes');
  const edgesField = node.selectionSet?.selections.find((s): s is FieldNode => s.kind === 'Field' && s.name.value === 'edges');
  const edgeNode = edgesField?.selectionSet?.selections.find((s): s is FieldNode => s.kind === 'Field' && s.name.value === 'node');
  const nodeSelection = nodesField?.selectionSet ?? edgeNode?.selectionSet;
  const nodeType = getNamedType(type.getFields().nodes!.type) as GraphQLObjectType;
  if (!nodeSelection) return 2;
  if (value === undefined) return 2 + first * (1 + costOf(nodeSelection, nodeType, variables));
  const returned = ((value as { nodes?: unknown[] } | null)?.nodes ?? (value as { edges?: { node: unknown }[] } | null)?.edges?.map((edge) => edge.node) ?? []);
  return 2 + returned.reduce((sum: number, item) => sum + 1 + costOf(nodeSelection, nodeType, variables, item), 0);
}

export interface ShopifyErp {
  readonly url: string;
  /** The store's CDN, a server of its own on another host (localhost:port), for system.assetHosts. */
  readonly cdnHost: string;
  /** Requests the CDN got (their paths), and whether any carried the store's access token. */
  readonly cdnRequests: { readonly path: string; readonly token: boolean }[];
  /** Every request's body, in order of arrival. */
  readonly requests: { readonly body: string; readonly operationName?: string; readonly throttled: boolean }[];
  /** How often the same request (the same body) was answered THROTTLED, at most. */
  maxThrottledPerRequest(): number;
  throttledCount(): number;
  /** The points left in the bucket now. */
  available(): number;
  /** Empties the bucket (for tests starting from an empty one). */
  drain(): void;
  readonly orders: Order[];
  close(): Promise<void>;
}

const BUCKET = 1000;
const RESTORE = 50;

/** The CDN: product images, and a redirect to a host that is not the CDN's (127.0.0.1, the store's own). */
async function startCdn(away: () => string): Promise<{ server: http.Server; host: string; requests: { path: string; token: boolean }[] }> {
  const requests: { path: string; token: boolean }[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? '', token: req.headers['x-shopify-access-token'] !== undefined });
    if (req.url === '/s/files/1/products/moved.png') {
      res.writeHead(302, { location: '/s/files/1/products/sku-101.png' });
      return res.end();
    }
    if (req.url === '/s/files/1/products/away.png') {
      res.writeHead(302, { location: `${away()}/s/files/1/products/sku-101.png` });
      return res.end();
    }
    const match = /^\/s\/files\/1\/products\/(sku-\d+)\.png$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('Not Found');
    }
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(articleImage(match[1]!));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, host: `localhost:${(server.address() as AddressInfo).port}`, requests };
}

export async function startShopifyErp(options: { openOrders?: number } = {}): Promise<ShopifyErp> {
  const schema = buildSchema(fs.readFileSync(SHOPIFY_SCHEMA, 'utf8'));
  const orders = makeOrders(options.openOrders ?? 30);
  let storeUrl = '';
  const cdn = await startCdn(() => storeUrl);
  const variants = makeVariants(`http://${cdn.host}`);
  let level = BUCKET;
  let at = performance.now();
  const fill = () => {
    const now = performance.now();
    level = Math.min(BUCKET, level + ((now - at) / 1000) * RESTORE);
    at = now;
    return level;
  };
  const requests: { body: string; operationName?: string; throttled: boolean }[] = [];
  const throttles = new Map<string, number>();

  const orderView = (order: Order) => ({ ...order, lineItems: ({ first, after }: { first: number; after?: string }) => connection(`L${order.id}`, order.lines, first, after) });
  const search = (query: string | undefined): Order[] => {
    if (!query) return orders;
    const byName = /^name:(#?\S+)$/.exec(query);
    if (byName) return orders.filter((order) => order.name === byName[1] || order.name === `#${byName[1]}`);
    if (query === 'status:open') return orders.filter((order) => order.displayFulfillmentStatus === 'UNFULFILLED');
    throw new Error(`unsupported search: ${query}`);
  };
  const root = {
    orders: ({ first, after, query }: { first: number; after?: string; query?: string }) => connection('O', search(query).map(orderView), first, after),
    order: ({ id }: { id: string }) => {
      const order = orders.find((candidate) => candidate.id === id);
      return order ? orderView(order) : null;
    },
    productVariants: ({ first, after, query }: { first: number; after?: string; query?: string }) => {
      const sku = /^sku:(\S+)$/.exec(query ?? '')?.[1];
      return connection('V', sku === undefined ? variants : variants.filter((variant) => variant.sku === sku), first, after);
    },
    fulfillmentCreate: ({ orderId }: { orderId: string }) => {
      const order = orders.find((candidate) => candidate.id === orderId);
      if (!order) return { fulfillment: null, userErrors: [{ field: ['orderId'], message: 'Order does not exist' }] };
      if (order.displayFulfillmentStatus === 'FULFILLED') return { fulfillment: null, userErrors: [{ field: ['orderId'], message: `Order ${order.name} is already fulfilled` }] };
      order.displayFulfillmentStatus = 'FULFILLED';
      return { fulfillment: { id: `gid://shopify/Fulfillment/${orderId.split('/').pop()}`, status: 'SUCCESS' }, userErrors: [] };
    },
  };

  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, text: string) => {
    if (req.method !== 'POST' || req.url !== SHOPIFY_PATH) return answer(res, 404, { errors: 'Not Found' });
    if (req.headers['x-shopify-access-token'] !== SHOPIFY_TOKEN) return answer(res, 401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    let request: { query?: unknown; variables?: Record<string, unknown>; operationName?: string };
    let document: DocumentNode;
    try {
      request = JSON.parse(text) as typeof request;
      document = parse(String(request.query));
    } catch (error) {
      return answer(res, 200, { errors: [{ message: (error as Error).message, extensions: { code: 'BAD_REQUEST' } }] });
    }
    const record = { body: text, operationName: request.operationName, throttled: false };
    requests.push(record);
    const invalid = validate(schema, document);
    if (invalid.length > 0) return answer(res, 200, { errors: invalid.map((error) => ({ message: error.message, locations: error.locations })) });
    const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === 'OperationDefinition' && (request.operationName === undefined || definition.name?.value === request.operationName));
    if (!operation) return answer(res, 200, { errors: [{ message: 'No operation to run' }] });
    const variables = request.variables ?? {};
    const rootType = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    const requested = operation.operation === 'mutation' ? 10 : costOf(operation.selectionSet, rootType, variables);
    const status = () => ({ maximumAvailable: BUCKET, currentlyAvailable: Math.floor(fill()), restoreRate: RESTORE });
    if (requested > BUCKET) {
      return answer(res, 200, { errors: [{ message: `Query cost is ${requested}, which exceeds the single query max cost limit (${BUCKET}).`, extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: BUCKET } }] });
    }
    if (requested > fill()) {
      record.throttled = true;
      throttles.set(text, (throttles.get(text) ?? 0) + 1);
      return answer(res, 200, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }], extensions: { cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: status() } } });
    }
    level -= requested;
    const result = execute({ schema, document, rootValue: root, variableValues: variables, operationName: request.operationName }) as { data?: unknown; errors?: readonly { message: string }[] };
    const actual = operation.operation === 'mutation' ? 10 : costOf(operation.selectionSet, rootType, variables, result.data ?? null);
    level = Math.min(BUCKET, level + (requested - actual));
    const errors = result.errors?.map((error) => ({ message: error.message }));
    answer(res, 200, { ...(errors ? { errors } : {}), data: result.data ?? null, extensions: { cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: status() } } });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  storeUrl = url;
  return {
    url,
    cdnHost: cdn.host,
    cdnRequests: cdn.requests,
    requests,
    orders,
    maxThrottledPerRequest: () => Math.max(0, ...throttles.values()),
    throttledCount: () => requests.filter((request) => request.throttled).length,
    available: () => fill(),
    drain: () => {
      fill();
      level = 0;
    },
    close: async () => {
      for (const open of [server, cdn.server]) {
        await new Promise<void>((resolve) => {
          open.close(() => resolve());
          open.closeAllConnections();
        });
      }
    },
  };
}
