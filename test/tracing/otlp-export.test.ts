import path from 'node:path';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_SERVER_ADDRESS, ATTR_SERVICE_NAME, ATTR_URL_FULL } from '@opentelemetry/semantic-conventions';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_AUTH, eventually, runCli, startServe, stoppedAfterEach, tempDir, writeFile } from '../cli/cli-process';
import { blocksOf, commandOf } from '../docs/markdown';
import { json, paginated, startMisbehavingErp, status, type MisbehavingErp } from '../support/misbehaving-erp';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { OUTBOX_PLACEMENT } from '../support/outbox-operation';

/**
 * W3C trace context and OTLP export, end to end: a real `serve` process (the built CLI), a stand-in ERP
 * that records the traceparent of every request, and a stand-in collector that decodes the spans the
 * official exporter sends. Without OTEL_* variables nothing is exported, but the ERP still gets a
 * traceparent that continues the platform's trace.
 */

const API_KEY = 'otel-test-api-key-31';
const CLIENT_SECRET = 'otel-client-secret-31';
const MAPPING = `version: 1
name: acme
system:
  baseUrl: \${ERP_URL}
  auth: { type: apiKey, in: query, name: api_key, value: "\${ERP_API_KEY}" }
operations:
  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
        query: { client: "\${ERP_CLIENT_SECRET}" }
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
  GetExportColumns:
    calls:
      - name: columns
        method: GET
        path: /columns
        paginate: { style: page, sizeParam: pageSize, pageSize: 3, items: response.body.items, hasMore: response.body.page < response.body.totalPages }
    output: calls.columns.items
${OUTBOX_PLACEMENT}  GetItem:
    calls:
      - name: item
        method: GET
        path: /items/{input.number}
    output: '{ "number": calls.item.body.no }'
platform:
  baseUrl: \${PLATFORM_URL}
push:
  NewOrder:
    auth: { type: apiKey, header: X-Api-Key, keys: ["\${ERP_PUSH_KEY}"] }
    schema: { type: object, required: [orderNo] }
    idempotencyKey: input.orderNo
    calls:
      - name: create
        method: POST
        path: /work-orders
        body: input
`;
const COLUMNS = Array.from({ length: 7 }, (_, i) => ({ key: `k${i}`, header: `Column ${i}` }));
const PLACEMENT = { workOrderNumber: 'SO-31', itemNumber: 'A-1', completedAmount: 1, confirmedLocationName: 'B1', userEmail: 'u@example.com' };
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

const { running, cleanups } = stoppedAfterEach(afterEach);

async function erpStandIn(): Promise<MisbehavingErp> {
  const erp = await startMisbehavingErp();
  cleanups.push(() => erp.close());
  erp.on('GET /orders/4711', () => json({ no: '4711' }));
  erp.on('GET /columns', paginated(COLUMNS, 'page', 3, '/api/columns'));
  erp.on('POST /placements', () => json({ ok: true }));
  erp.on('GET /items/X-500', () => status(500));
  return erp;
}

const PUSH_KEY = 'otel-push-key-31';

async function serveWith(erp: MisbehavingErp, env: Record<string, string>) {
  const dir = tempDir();
  const mapping = writeFile(dir, 'acme.yaml', MAPPING);
  const platform = await startMisbehavingErp();
  cleanups.push(() => platform.close());
  platform.on('POST /work-orders', () => json({ ok: true }));
  const serving = await startServe(['--admin-port', '0', '--state-dir', path.join(dir, 'state'), mapping], {
    ERP_URL: erp.url, ERP_API_KEY: API_KEY, ERP_CLIENT_SECRET: CLIENT_SECRET, PLATFORM_URL: platform.url, ERP_PUSH_KEY: PUSH_KEY, ...env,
  });
  running.push(serving);
  return { serving, platform };
}

/** The trace and span id the ERP (or the platform) got on its requests to `route` (METHOD /path), in order. */
function traceparentsAt(erp: MisbehavingErp, route: string): { traceId: string; spanId: string; flags: string }[] {
  return erp.requests.filter((request) => `${request.method} ${request.path}` === route).map((request) => {
    const found = TRACEPARENT.exec(String(request.headers.traceparent));
    if (!found) throw new Error(`no valid traceparent on ${route}: ${String(request.headers.traceparent)}`);
    return { traceId: found[1] as string, spanId: found[2] as string, flags: found[3] as string };
  });
}

/** docs/operations.md's examples, run here: the tracing environment (its collector replaced by the stand-in) and the journal search. */
const GUIDE = 'docs/operations.md';
function documentedEnvironment(): Record<string, string> {
  const block = blocksOf(GUIDE).find((candidate) => candidate.text.startsWith('# tracing environment'));
  if (!block) throw new Error(`${GUIDE} has no "# tracing environment" block`);
  return Object.fromEntries(block.text.split('\n').filter((line) => line.startsWith('export ')).map((line) => {
    const [name, ...value] = line.slice('export '.length).split('=');
    return [name as string, value.join('=').replace(/^"(.*)"$/, '$1')];
  }));
}
function documentedSearch(adminUrl: string, traceId: string): string[] {
  const line = blocksOf(GUIDE).flatMap((block) => block.text.split('\n')).find((text) => text.includes('requests --admin') && /--contains [0-9a-f]{32}/.test(text));
  if (!line) throw new Error(`${GUIDE} shows no search by trace id`);
  return commandOf(line).args.map((arg) => (arg.startsWith('http://') ? adminUrl : /^[0-9a-f]{32}$/.test(arg) ? traceId : arg));
}

const platformTrace = (traceId: string, spanId: string) => ({ traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'platform=abc' });

describe('OpenTelemetry export over OTLP/HTTP', () => {
  it('exports a server span per request and push, a client span per ERP request and page, failures with error.type, and each outbox delivery linked to the request that stored it', async () => {
    const collector = await startOtlpReceiver();
    cleanups.push(() => collector.close());
    const erp = await erpStandIn();
    const documented = documentedEnvironment();
    expect(documented.OTEL_TRACES_SAMPLER).toBe('parentbased_traceidratio');
    // The platform's traces are sampled (flag 01), so the ratio, which applies to new traces only, drops none here.
    const { serving, platform } = await serveWith(erp, { ...documented, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' });
    const base = serving.urls[0] as string;
    const [lookupTrace, listTrace, eventTrace, failedTrace, pushTrace] = ['4bf92f3577b34da6a3ce929d0e0e4736', '5bf92f3577b34da6a3ce929d0e0e4737', '6bf92f3577b34da6a3ce929d0e0e4738', '7bf92f3577b34da6a3ce929d0e0e4739', '8bf92f3577b34da6a3ce929d0e0e473a'];
    const platformSpan = '00f067aa0ba902b7';

    expect(await (await fetch(`${base}/WorkOrders/Code?Code=4711`, { headers: platformTrace(lookupTrace, platformSpan) })).json()).toMatchObject({ isResultSuccess: true });
    expect(await (await fetch(`${base}/WorkOrders/WorkOrderExportColumns`, { headers: platformTrace(listTrace, platformSpan) })).json()).toMatchObject({ isResultSuccess: true, data: COLUMNS });
    const stored = await fetch(`${base}/WorkOrders/ForPutWall`, { method: 'POST', headers: { 'content-type': 'application/json', ...platformTrace(eventTrace, platformSpan) }, body: JSON.stringify(PLACEMENT) });
    expect(await stored.json()).toMatchObject({ isResultSuccess: true });
    expect(await (await fetch(`${base}/Items/X-500`, { headers: platformTrace(failedTrace, platformSpan) })).json()).toMatchObject({ isResultSuccess: false });
    const pushed = await fetch(`${base}/push/NewOrder`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': PUSH_KEY, ...platformTrace(pushTrace, platformSpan) }, body: JSON.stringify({ orderNo: 'SO-77' }) });
    expect(pushed.status).toBe(202);
    await eventually(() => [eventTrace, pushTrace].every((traceId) => collector.spans.some((span) => span.kind === 5 && span.traceId === traceId)) && collector.spans.filter((span) => span.kind === 3).length >= 7, 'the spans of five requests and two deliveries exported');

    const spanOf = (id: string): ReceivedSpan => collector.spans.find((span) => span.spanId === id) ?? expect.fail(`no span ${id}`);
    const serverOf = (traceId: string): ReceivedSpan => collector.spans.find((span) => span.kind === 2 && span.traceId === traceId) ?? expect.fail(`no server span in ${traceId}`);

    // The lookup: the platform's trace continued; the ERP's traceparent is the client span, a child of the server span.
    const lookup = serverOf(lookupTrace);
    expect(lookup).toMatchObject({ name: 'GET /WorkOrders/Code', parentSpanId: platformSpan, statusCode: 0 });
    expect(lookup.attributes).toMatchObject({ [ATTR_HTTP_ROUTE]: '/WorkOrders/Code', 'adapter.result': 'Succeed', 'adapter.operation': 'GetWorkOrderByCode', [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200 });
    expect(lookup.resource[ATTR_SERVICE_NAME]).toBe('adapter-acme');
    const [sent] = traceparentsAt(erp, 'GET /orders/4711');
    expect(sent).toMatchObject({ traceId: lookupTrace, flags: '01' });
    expect(erp.requests.find((request) => request.path === '/orders/4711')?.headers.tracestate).toBe('platform=abc');
    const call = spanOf(sent!.spanId);
    expect(call).toMatchObject({ kind: 3, traceId: lookupTrace, parentSpanId: lookup.spanId, name: 'GET order' });
    expect(call.attributes).toMatchObject({ [ATTR_HTTP_REQUEST_METHOD]: 'GET', [ATTR_SERVER_ADDRESS]: '127.0.0.1', [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200, 'adapter.call': 'order' });
    // The URL as the mapping built it, its secret values masked; the API key is added on the way out and is not on it.
    expect(call.attributes[ATTR_URL_FULL]).toBe(`${erp.url}/orders/4711?client=***`);
    expect(erp.requests.find((request) => request.path === '/orders/4711')?.query.get('api_key')).toBe(API_KEY);
    expect(call.attributes[ATTR_ERROR_TYPE]).toBeUndefined();
    expect(JSON.stringify(collector.spans)).not.toContain(API_KEY);
    expect(JSON.stringify(collector.spans)).not.toContain(CLIENT_SECRET);

    // The paginated call: one client span per page, each with the id its request carried.
    const list = serverOf(listTrace);
    const pages = traceparentsAt(erp, 'GET /columns');
    expect(pages).toHaveLength(3);
    expect(new Set(pages.map((page) => page.spanId)).size).toBe(3);
    expect(pages.map((page) => spanOf(page.spanId)).map((span) => [span.parentSpanId, span.attributes['adapter.page']])).toEqual([[list.spanId, 1], [list.spanId, 2], [list.spanId, 3]]);

    // The outbox event: delivered later under a consumer span of the same trace, linked to the request that stored it.
    const accepted = serverOf(eventTrace);
    const delivery = collector.spans.find((span) => span.kind === 5 && span.traceId === eventTrace) as ReceivedSpan;
    expect(delivery).toMatchObject({ name: 'deliver ConfirmPutWallPlacement', parentSpanId: accepted.spanId, links: [{ traceId: eventTrace, spanId: accepted.spanId }] });
    const [delivered] = traceparentsAt(erp, 'POST /placements');
    expect(delivered?.traceId).toBe(eventTrace);
    expect(spanOf(delivered!.spanId)).toMatchObject({ kind: 3, parentSpanId: delivery.spanId });

    // A failed ERP answer: the client span has the status as error.type, the server span the engine's failure.
    const failedCall = spanOf(traceparentsAt(erp, 'GET /items/X-500')[0]!.spanId);
    expect(failedCall).toMatchObject({ statusCode: 2, attributes: expect.objectContaining({ [ATTR_ERROR_TYPE]: '500', [ATTR_HTTP_RESPONSE_STATUS_CODE]: 500 }) });
    expect(serverOf(failedTrace)).toMatchObject({ statusCode: 2, attributes: expect.objectContaining({ [ATTR_ERROR_TYPE]: 'ERP_ERROR_STATUS', 'adapter.result': 'AdapterApiCallFailed' }) });

    // The ERP's push: its server span continues the ERP's trace; the delivery to the platform is linked to it and carries the trace on.
    const push = serverOf(pushTrace);
    expect(push).toMatchObject({ name: 'POST /push/NewOrder', parentSpanId: platformSpan, attributes: expect.objectContaining({ 'adapter.result': 'Accepted' }) });
    const pushDelivery = collector.spans.find((span) => span.kind === 5 && span.traceId === pushTrace) as ReceivedSpan;
    expect(pushDelivery).toMatchObject({ name: 'deliver push/NewOrder', parentSpanId: push.spanId, links: [{ traceId: pushTrace, spanId: push.spanId }] });
    const [forwarded] = traceparentsAt(platform, 'POST /work-orders');
    expect(spanOf(forwarded!.spanId)).toMatchObject({ kind: 3, traceId: pushTrace, parentSpanId: pushDelivery.spanId });
    expect(collector.headers[0]?.authorization).toBe('Bearer collector-token');
  }, 60_000);
});

describe('span export at shutdown', () => {
  it('sends the spans still waiting for their batch when serve stops on SIGTERM, as http/protobuf by default', async () => {
    const collector = await startOtlpReceiver();
    cleanups.push(() => collector.close());
    const erp = await erpStandIn();
    const { serving } = await serveWith(erp, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '600000' });
    const traceId = '9bf92f3577b34da6a3ce929d0e0e473b';
    await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=4711`, { headers: platformTrace(traceId, '00f067aa0ba902b7') });
    expect(collector.protobuf).toEqual([]);
    serving.child.kill('SIGTERM');
    expect((await serving.exited).code).toBe(0);
    // Protobuf is not decoded here: the ids are its bytes fields, the names and the resource its strings.
    const body = Buffer.concat(collector.protobuf);
    expect(collector.headers.map((headers) => headers['content-type'])).toEqual(['application/x-protobuf']);
    expect(body.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    for (const text of ['GET /WorkOrders/Code', 'GET order', 'adapter-engine']) expect(body.includes(Buffer.from(text)), text).toBe(true);
    expect(collector.spans).toEqual([]);
  }, 60_000);
});

describe('trace context without an exporter', () => {
  it('sends every ERP call a traceparent that continues the platform trace, or a new one, and the journal keeps the trace id', async () => {
    const erp = await erpStandIn();
    const { serving } = await serveWith(erp, { LOG_LEVEL: 'info' });
    const base = serving.urls[0] as string;
    const platformTraceId = '0af7651916cd43dd8448eb211c80319c';
    const platformSpan = 'b7ad6b7169203331';

    const answered = await fetch(`${base}/WorkOrders/Code?Code=4711`, { headers: { traceparent: `00-${platformTraceId}-${platformSpan}-01` } });
    expect(await answered.json()).toMatchObject({ isResultSuccess: true });
    await fetch(`${base}/WorkOrders/WorkOrderExportColumns`);
    await fetch(`${base}/WorkOrders/ForPutWall`, { method: 'POST', headers: { 'content-type': 'application/json', traceparent: `00-${platformTraceId}-${platformSpan}-00` }, body: JSON.stringify(PLACEMENT) });
    await eventually(() => erp.count('POST /placements') === 1, 'the outbox event delivered');

    const [continued] = traceparentsAt(erp, 'GET /orders/4711');
    expect(continued).toMatchObject({ traceId: platformTraceId, flags: '01' });
    expect(continued?.spanId).not.toBe(platformSpan);
    // No traceparent from the platform: a new trace, one per request, a span id per page; not sampled, as nothing records it.
    const pages = traceparentsAt(erp, 'GET /columns');
    expect(new Set(pages.map((page) => page.traceId)).size).toBe(1);
    expect(pages[0]).toMatchObject({ flags: '00' });
    expect(pages[0]?.traceId).not.toBe(platformTraceId);
    expect(new Set(pages.map((page) => page.spanId)).size).toBe(3);
    // The delivery, later and in the background, still carries the trace of the request that stored it.
    expect(traceparentsAt(erp, 'POST /placements')[0]).toMatchObject({ traceId: platformTraceId, flags: '00' });

    // The engine's log lines of the request and of the delivery carry the trace id.
    const logged = `${serving.output().stdout}${serving.output().stderr}`.split('\n').filter((line) => line.includes(`"traceId":"${platformTraceId}"`));
    expect(logged.some((line) => line.includes('"msg":"request"'))).toBe(true);
    expect(logged.some((line) => line.includes('"msg":"erp call"') && line.includes('/placements'))).toBe(true);

    // Support finds the requests from the trace id in an ERP's log line, with the guide's command.
    const searched = await runCli([...documentedSearch(serving.adminUrl as string, platformTraceId), '--json']);
    expect(searched.code, searched.stderr).toBe(0);
    const found = JSON.parse(searched.stdout) as { id: string; operation: string }[];
    expect(found.map((request) => request.operation).sort()).toEqual(['ConfirmPutWallPlacement', 'GetWorkOrderByCode']);
    const entry = await (await fetch(`${serving.adminUrl}/requests/${found[0]?.id}`, { headers: ADMIN_AUTH })).json() as { request: { traceId: string } };
    expect(entry.request.traceId).toBe(platformTraceId);
  }, 60_000);
});
