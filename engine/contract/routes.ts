
/**
 * The contract as data: the single source of truth for the 19 routes of the adapter interface
 * (shared/contract.md). The server, the mapping loader, the CLI and the benchmarks read this table
 * (as would an OpenAPI document); nothing else in the engine may spell a route, a result name or a result number.
 */

type HttpMethod = 'GET' | 'POST';

/** Where a route's input comes from: nothing, the query string, path parameters, or the JSON body. */
type InputSource = 'none' | 'query' | 'path' | 'body';

type RouteKind = 'data' | 'event';

export interface RouteSpec {
  /** Stable name used as the key under `operations:` in a mapping file. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path in the contract's notation, e.g. `/Items/{number}`. */
  readonly path: string;
  readonly kind: RouteKind;
  readonly inputSource: InputSource;
  /** Names of query parameters or path parameters, as the contract spells them. */
  readonly params: readonly string[];
  /** JSON Schema of the input (refs point into schemas/contract), or null when the route takes no input. */
  readonly inputSchema: JsonSchema | null;
  /** JSON Schema of the `data` member (data routes only). */
  readonly dataSchema: JsonSchema | null;
  /** Result name to number, exactly as the contract lists it for this route. */
  readonly results: Readonly<Record<string, number>>;
  readonly successResult: ResultName;
  /** Data answered with the success result when the mapping leaves the route unmapped (contract rule 5). */
  readonly unmappedDefault?: { readonly data: unknown };
  readonly summary: string;
}

/** Every result name the contract uses on some route; a route's list takes only these. @public (its type is ResultName) */
export const RESULT_NAMES = [
  'OperationFailed', 'Succeed', 'Success', 'InvalidInput', 'AdapterApiClientFailed', 'AdapterApiCallFailed', 'AdapterNotDefined', 'FileNotSupported',
  'WorkOrderInvalid', 'WorkOrderDoesNotExist', 'WorkOrderAlreadyAttached', 'ItemDoesNotExist', 'ImageDoesNotExist',
  'ContainerDoesNotExist', 'ContainerAlreadyAttached', 'InvalidContainer',
] as const;
export type ResultName = (typeof RESULT_NAMES)[number];

type ResultList = readonly ResultName[];

export type JsonSchema = Readonly<Record<string, unknown>>;

const CONTRACT_SCHEMA_BASE = 'https://adapter-engine.dev/schemas/contract/';
const ref = (file: string): JsonSchema => ({ $ref: CONTRACT_SCHEMA_BASE + file });
const listOf = (file: string): JsonSchema => ({ type: 'array', items: ref(file) });
/**
 * What the contract calls "the image bytes, Base64-encoded": Base64 text (standard alphabet, padded) of
 * bytes that start like an image (PNG, JPEG, GIF, WebP, BMP, TIFF, ICO, AVIF/HEIC, SVG). Format
 * `image-base64` is checked by contract/base64.ts (the schema registry adds it), so an HTML error page
 * or a JSON error body the ERP answers instead of the picture is no Success.
 */
const BASE64_STRING: JsonSchema = { type: 'string', minLength: 1, format: 'image-base64' };

/** The contract lists results as `0 A, 1 B, ...`; keep that shape so each list reads like the contract. */
function enumOf(names: ResultList): Readonly<Record<string, number>> {
  return Object.freeze(Object.fromEntries(names.map((name, index) => [name, index])));
}

const WORK_ORDER_LIST = enumOf(['OperationFailed', 'WorkOrderInvalid', 'Succeed', 'AdapterApiClientFailed', 'AdapterApiCallFailed', 'AdapterNotDefined']);
const FILE_RESULTS = (success: ResultName) => enumOf(['OperationFailed', success, 'InvalidInput', 'FileNotSupported', 'AdapterApiClientFailed', 'AdapterApiCallFailed', 'AdapterNotDefined']);
const EXPORT_RESULTS = enumOf(['AdapterNotDefined', 'AdapterApiClientFailed', 'Success', 'OperationFailed']);
const PUT_WALL_EVENT_RESULTS = enumOf(['OperationFailed', 'Succeed', 'AdapterApiClientFailed', 'AdapterApiCallFailed', 'AdapterNotDefined', 'InvalidInput']);
const STEP_RESULTS = enumOf(['InvalidInput', 'Success', 'OperationFailed', 'AdapterApiClientFailed', 'AdapterNotDefined']);

const routeList: RouteSpec[] = [
  {
    operationId: 'GetWorkOrders', method: 'GET', path: '/WorkOrders', kind: 'data',
    inputSource: 'none', params: [], inputSchema: null, dataSchema: listOf('work-order.schema.json'),
    results: WORK_ORDER_LIST, successResult: 'Succeed',
    summary: 'All work orders currently available',
  },
  {
    operationId: 'GetWorkOrderByCode', method: 'GET', path: '/WorkOrders/Code', kind: 'data',
    inputSource: 'query', params: ['Code', 'StorageName'], inputSchema: ref('code-lookup-query.schema.json'),
    dataSchema: { anyOf: [ref('work-order.schema.json'), { type: 'null' }] },
    results: enumOf(['OperationFailed', 'Succeed', 'WorkOrderDoesNotExist', 'AdapterApiClientFailed', 'AdapterApiCallFailed', 'AdapterNotDefined']),
    successResult: 'Succeed',
    summary: 'One work order looked up by a scanned code',
  },
  {
    operationId: 'GetWorkOrdersForPutWall', method: 'GET', path: '/WorkOrders/ForPutWall/{code}', kind: 'data',
    inputSource: 'path', params: ['code'], inputSchema: ref('put-wall-code-path.schema.json'), dataSchema: listOf('work-order.schema.json'),
    results: WORK_ORDER_LIST, successResult: 'Succeed',
    summary: 'The work orders of a Put Wall batch or tote code',
  },
  {
    operationId: 'ParseWorkOrderFile', method: 'POST', path: '/WorkOrders/File', kind: 'data',
    inputSource: 'body', params: [], inputSchema: ref('file-request.schema.json'), dataSchema: listOf('work-order.schema.json'),
    results: FILE_RESULTS('Succeed'), successResult: 'Succeed',
    summary: 'Work orders parsed from an uploaded JSON or CSV file',
  },
  {
    operationId: 'GetReport', method: 'POST', path: '/WorkOrders/GetReport', kind: 'data',
    inputSource: 'body', params: [], inputSchema: ref('report-request.schema.json'), dataSchema: ref('report-data.schema.json'),
    results: enumOf(['OperationFailed', 'InvalidInput', 'AdapterApiClientFailed', 'AdapterNotDefined', 'WorkOrderDoesNotExist', 'Succeed']),
    successResult: 'Succeed',
    summary: 'Completion report: missing quantities and current placements',
  },
  {
    operationId: 'GetExportColumns', method: 'GET', path: '/WorkOrders/WorkOrderExportColumns', kind: 'data',
    inputSource: 'none', params: [], inputSchema: null, dataSchema: listOf('export-column.schema.json'),
    results: EXPORT_RESULTS, successResult: 'Success', unmappedDefault: { data: [] },
    summary: 'Extra export columns offered by the adapter',
  },
  {
    operationId: 'GetExportValues', method: 'POST', path: '/WorkOrders/WorkOrderExportValues', kind: 'data',
    inputSource: 'body', params: [], inputSchema: ref('export-values-request.schema.json'), dataSchema: listOf('export-values-row.schema.json'),
    results: EXPORT_RESULTS, successResult: 'Success', unmappedDefault: { data: [] },
    summary: 'Cell values of the extra export columns for a range of work orders',
  },
  {
    operationId: 'GetExternalIndexableValueLabel', method: 'GET', path: '/WorkOrders/WorkOrderExternalIndexableValueLabel', kind: 'data',
    inputSource: 'none', params: [], inputSchema: null, dataSchema: ref('external-indexable-value-label.schema.json'),
    results: EXPORT_RESULTS, successResult: 'Success', unmappedDefault: { data: { label: '' } },
    summary: 'Heading of the external indexable value column',
  },
  {
    operationId: 'ConfirmPutWallPlacement', method: 'POST', path: '/WorkOrders/ForPutWall', kind: 'event',
    inputSource: 'body', params: [], inputSchema: ref('put-wall-placement.schema.json'), dataSchema: null,
    results: PUT_WALL_EVENT_RESULTS, successResult: 'Succeed',
    summary: 'Event: an item amount was placed into a Put Wall location',
  },
  {
    operationId: 'CancelPutWallItem', method: 'POST', path: '/WorkOrders/CancelPutWallItem', kind: 'event',
    inputSource: 'body', params: [], inputSchema: ref('cancel-put-wall-item.schema.json'), dataSchema: null,
    results: PUT_WALL_EVENT_RESULTS, successResult: 'Succeed',
    summary: 'Event: one item of a work order was cancelled in Put Wall processing',
  },
  {
    operationId: 'CancelWorkOrderRequest', method: 'POST', path: '/WorkOrders/CancelWorkOrderRequest', kind: 'event',
    inputSource: 'body', params: [], inputSchema: ref('cancel-work-order-request.schema.json'), dataSchema: null,
    results: enumOf(['AdapterApiClientFailed', 'AdapterNotDefined', 'Success', 'OperationFailed']),
    successResult: 'Success',
    summary: 'Event: one request line was cancelled',
  },
  {
    operationId: 'RelocateCartContainers', method: 'POST', path: '/WorkOrders/RelocateCartContainers', kind: 'event',
    inputSource: 'body', params: [], inputSchema: ref('relocate-cart-containers.schema.json'), dataSchema: null,
    results: STEP_RESULTS, successResult: 'Success',
    summary: 'Event: cart containers were moved to destination locations',
  },
  {
    operationId: 'AttachWorkOrder', method: 'POST', path: '/WorkOrders/AttachWorkOrder', kind: 'event',
    inputSource: 'body', params: [], inputSchema: ref('attach-work-order.schema.json'), dataSchema: null,
    results: enumOf(['Success', 'OperationFailed', 'InvalidInput', 'WorkOrderDoesNotExist', 'ContainerDoesNotExist', 'WorkOrderAlreadyAttached', 'ContainerAlreadyAttached', 'AdapterApiClientFailed', 'AdapterNotDefined', 'InvalidContainer']),
    successResult: 'Success',
    summary: 'Event: a work order was attached to or released from a container',
  },
  {
    // The contract lists no results for this legacy route. We use the list of the other single-order
    // event routes (ForPutWall, CancelPutWallItem) so that a platform reading it like its siblings is right.
    operationId: 'ReportWorkOrderStatus', method: 'POST', path: '/WorkOrders/Status', kind: 'event',
    inputSource: 'body', params: [], inputSchema: ref('work-order-status.schema.json'), dataSchema: null,
    results: PUT_WALL_EVENT_RESULTS, successResult: 'Succeed',
    summary: 'Event (legacy): a work order status changed',
  },
  {
    operationId: 'ConfirmWorkOrderStep', method: 'POST', path: '/WorkOrderProcessing/ConfirmWorkOrderStep', kind: 'data',
    inputSource: 'body', params: [], inputSchema: ref('step-confirmation.schema.json'), dataSchema: ref('confirm-step-data.schema.json'),
    results: STEP_RESULTS, successResult: 'Success',
    summary: 'Callback: a pick or place step of a single order was confirmed',
  },
  {
    operationId: 'ConfirmCartWorkOrderStep', method: 'POST', path: '/CartWorkOrderProcessing/ConfirmWorkOrderStep', kind: 'data',
    inputSource: 'body', params: [], inputSchema: ref('cart-step-confirmation.schema.json'), dataSchema: ref('confirm-step-data.schema.json'),
    results: STEP_RESULTS, successResult: 'Success',
    summary: 'Callback: a pick step of multi-order cart processing was confirmed',
  },
  {
    operationId: 'GetItem', method: 'GET', path: '/Items/{number}', kind: 'data',
    inputSource: 'path', params: ['number'], inputSchema: ref('item-number-path.schema.json'), dataSchema: ref('item.schema.json'),
    results: enumOf(['OperationFailed', 'Succeed', 'ItemDoesNotExist', 'AdapterApiClientFailed', 'AdapterApiCallFailed', 'AdapterNotDefined']),
    successResult: 'Succeed',
    summary: 'Item master data of one item',
  },
  {
    operationId: 'ParseItemFile', method: 'POST', path: '/Items/File', kind: 'data',
    inputSource: 'body', params: [], inputSchema: ref('file-request.schema.json'), dataSchema: listOf('item.schema.json'),
    results: FILE_RESULTS('Success'), successResult: 'Success',
    summary: 'Items parsed from an uploaded JSON or CSV file',
  },
  {
    operationId: 'GetItemImage', method: 'GET', path: '/Items/IntegrateImage/{number}', kind: 'data',
    inputSource: 'path', params: ['number'], inputSchema: ref('item-number-path.schema.json'), dataSchema: BASE64_STRING,
    results: enumOf(['OperationFailed', 'InvalidInput', 'AdapterApiClientFailed', 'AdapterNotDefined', 'ImageDoesNotExist', 'Success']),
    successResult: 'Success',
    summary: 'Product image of one item, Base64-encoded',
  },
];

export const ROUTES: readonly RouteSpec[] = Object.freeze(routeList.map((route) => Object.freeze(route)));

const ROUTES_BY_OPERATION: ReadonlyMap<string, RouteSpec> = new Map(ROUTES.map((route) => [route.operationId, route]));

export function findRoute(operationId: string): RouteSpec | undefined {
  return ROUTES_BY_OPERATION.get(operationId);
}

/** The number of a result name on a route; throws on a name the route does not have (an engine bug). */
export function resultNumber(route: RouteSpec, name: string): number {
  const value = route.results[name];
  if (value === undefined) throw new Error(`route ${route.operationId} has no result named ${name}`);
  return value;
}

export function hasResult(route: RouteSpec, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(route.results, name);
}

/** First of the names the route has: how the engine picks defaults such as InvalidInput-else-OperationFailed. */
export function firstResultOf(route: RouteSpec, ...names: string[]): string {
  const found = names.find((name) => hasResult(route, name));
  if (!found) throw new Error(`route ${route.operationId} has none of ${names.join(', ')}`);
  return found;
}
