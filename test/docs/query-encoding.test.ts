/**
 * docs/connecting-an-erp.md shows, for one input, the exact request line of each query encoding
 * (issue 17). The guide's mapping runs against a real HTTP server on 127.0.0.1, and the lines the
 * server receives must be the lines the guide shows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, mappingFromText, type RunningEngine, startEngine } from '../support/engine';
import { json, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';
import { blocksOf } from './markdown';

const GUIDE = 'docs/connecting-an-erp.md';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

describe('the guide on query encoding', () => {
  it('shows the request lines the ERP receives', async () => {
    const blocks = blocksOf(GUIDE);
    const index = blocks.findIndex((block) => block.lang === 'yaml' && block.text.includes('name: odata-example'));
    expect(index).toBeGreaterThan(-1);
    const shown = blocks.slice(index + 1).find((block) => block.lang === 'text')!.text.trim().split('\n');

    erp = await startMisbehavingErp({ basePath: '/sap/opu/odata/sap/API_SALES_ORDER_SRV' });
    erp.onAny(() => json({ d: { results: [] } }));
    engine = await startEngine(mappingFromText(blocks[index].text.replace('https://sap.example.com', erp.origin)));
    const envelope = await engine.call('GET', `/WorkOrders/Code?Code=${encodeURIComponent("O'Brien & Sons 1/2")}`);
    expect(envelope.isResultSuccess).toBe(true);
    expect(erp.requests.map((request) => `${request.method} ${request.url}`)).toEqual(shown);
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
