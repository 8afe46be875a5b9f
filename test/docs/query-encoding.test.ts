/**
 * docs/connecting-an-erp.md shows, for one input, the exact request line of each query encoding
 * (issue 17). The guide's mapping runs against a real HTTP server on 127.0.0.1, and the lines the
 * server receives must be the lines the guide shows.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { blocksOf } from './markdown';

const GUIDE = 'docs/connecting-an-erp.md';

let server: http.Server | undefined;
let engine: RunningEngine | undefined;
afterEach(async () => {
  await engine?.close();
  if (server) await new Promise((resolve) => server!.close(resolve));
  engine = undefined;
  server = undefined;
});

describe('the guide on query encoding', () => {
  it('shows the request lines the ERP receives', async () => {
    const blocks = blocksOf(GUIDE);
    const index = blocks.findIndex((block) => block.lang === 'yaml' && block.text.includes('name: odata-example'));
    expect(index).toBeGreaterThan(-1);
    const shown = blocks.slice(index + 1).find((block) => block.lang === 'text')!.text.trim().split('\n');

    const received: string[] = [];
    server = http.createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"d":{"results":[]}}');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    engine = await startEngine(mappingFromText(blocks[index].text.replace('https://sap.example.com', local)));
    const envelope = await engine.call('GET', `/WorkOrders/Code?Code=${encodeURIComponent("O'Brien & Sons 1/2")}`);
    expect(envelope.isResultSuccess).toBe(true);
    expect(received).toEqual(shown);
  });

  it('$odataLiteral quotes text and doubles its quotes; numbers, booleans and null stay bare', async () => {
    const mapping = mappingFromText(`version: 1
name: t
system: { baseUrl: http://erp.test }
operations:
  GetExternalIndexableValueLabel:
    output: '{ "label": [$odataLiteral("it''s"), $odataLiteral(42), $odataLiteral(true), $odataLiteral(null), $odataLiteral("")] ~> $join(" ") }'
`);
    engine = await startEngine(mapping);
    const envelope = await engine.call('GET', '/WorkOrders/WorkOrderExternalIndexableValueLabel');
    expect(envelope.data).toEqual({ label: "'it''s' 42 true null ''" });
  });
});
