/**
 * Relative next links are resolved against the page that carried them (docs/connecting-an-erp.md shows
 * these four cases), with a base URL that has a path, as SAP Gateway's service URLs do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { head, startEngine, type RunningEngine } from '../support/engine';

const SERVICE = '/sap/opu/odata/sap/ZWM_SRV';

let server: http.Server | undefined;
let engine: RunningEngine | undefined;
afterEach(async () => {
  await engine?.close();
  if (server) await new Promise((resolve) => server!.close(resolve));
  engine = undefined;
  server = undefined;
});

/** The first page carries `link` as d.__next; the second, shorter page is the last. Returns the request lines and the envelope. */
async function follow(link: (origin: string) => string) {
  const received: string[] = [];
  server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    const first = received.length === 1;
    const origin = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    // The second page is shorter, so it is the last without a next link (a full one would fail: PAGINATION_INCOMPLETE).
    const d = first ? { results: [{ key: 'a', header: 'A' }, { key: 'b', header: 'B' }], __next: link(origin) } : { results: [{ key: 'c', header: 'C' }] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ d }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${SERVICE}`;
  engine = await startEngine(`${head(base)}  GetExportColumns:
    calls:
      - name: columns
        method: GET
        path: /OrderSet
        query: { $top: "20" }
        paginate: { style: nextLink, next: response.body.d.__next, items: response.body.d.results }
    output: calls.columns.items
`);
  const envelope = await engine.call('GET', '/WorkOrders/WorkOrderExportColumns');
  return { received, envelope };
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
