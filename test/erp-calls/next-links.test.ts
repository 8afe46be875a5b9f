/**
 * Relative next links are resolved against the page that carried them (docs/connecting-an-erp.md shows
 * these four cases), with a base URL that has a path, as SAP Gateway's service URLs do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, head, type RunningEngine, startEngine } from '../support/engine';
import { json, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';

const SERVICE = '/sap/opu/odata/sap/ZWM_SRV';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

/** The first page carries `link` as d.__next; the second, shorter page is the last. Returns the request lines and the envelope. */
async function follow(link: (origin: string) => string) {
  const gateway = await startMisbehavingErp({ basePath: SERVICE });
  erp = gateway;
  // The second page is shorter, so it is the last without a next link (a full one would fail: PAGINATION_INCOMPLETE).
  gateway.onAny((_request, seen) => json({ d: seen === 1 ? { results: [{ key: 'a', header: 'A' }, { key: 'b', header: 'B' }], __next: link(gateway.origin) } : { results: [{ key: 'c', header: 'C' }] } }));
  engine = await startEngine(`${head(gateway.url)}  GetExportColumns:
    calls:
      - name: columns
        method: GET
        path: /OrderSet
        query: { $top: "20" }
        paginate: { style: nextLink, next: response.body.d.__next, items: response.body.d.results }
    output: calls.columns.items
`);
  const envelope = await engine.call('GET', '/WorkOrders/WorkOrderExportColumns');
  return { received: gateway.requests.map((request) => `${request.method} ${request.url}`), envelope };
}

describe('relative next links under a base URL with a path', () => {
  it.each([
    ['OrderSet?$skiptoken=20', () => 'OrderSet?$skiptoken=20'],
    ['?$skiptoken=20', () => '?$skiptoken=20'],
    ['an absolute URL', (origin: string) => `${origin}${SERVICE}/OrderSet?$skiptoken=20`],
  ])('%s is resolved against the page: the service path is kept', async (_name, link) => {
    const { received, envelope } = await follow(link);
    expect(received).toEqual([`GET ${SERVICE}/OrderSet?$top=20`, `GET ${SERVICE}/OrderSet?$skiptoken=20`]);
    expect(envelope).toMatchObject({ isResultSuccess: true, data: [{ key: 'a', header: 'A' }, { key: 'b', header: 'B' }, { key: 'c', header: 'C' }] });
  });

  it('/OrderSet?$skiptoken=20 starts at the host, leaves the base URL, and is not followed', async () => {
    const { received, envelope } = await follow(() => '/OrderSet?$skiptoken=20');
    expect(received).toEqual([`GET ${SERVICE}/OrderSet?$top=20`]);
    expect(envelope.isResultSuccess).toBe(false);
    expect(JSON.stringify(envelope.validationStatus)).toContain('it is not followed');
  });
});
