/**
 * docs/connecting-an-erp.md, "Call templates": the guide's mapping runs against a real HTTP server on
 * 127.0.0.1. The requests the server receives are the ones the guide shows, with the headers merged as it
 * says, and each call is judged by the refusal rule the guide says applies: its template's, or the system's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../engine/errors';
import { closeAfterEach, mappingFromText, type RunningEngine, startEngine } from '../support/engine';
import { json, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';
import { blocksOf, ROOT } from './markdown';
import { errorsOf, yaml } from '../support/mapping-issues';

const GUIDE = 'docs/connecting-an-erp.md';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

function guideExample(): { mapping: string; requests: string[] } {
  const blocks = blocksOf(GUIDE);
  const index = blocks.findIndex((block) => block.lang === 'yaml' && block.text.includes('name: templates-example'));
  expect(index).toBeGreaterThan(-1);
  const shown = blocks.slice(index + 1).find((block) => block.lang === 'text')!;
  return { mapping: blocks[index].text, requests: shown.text.trim().split('\n') };
}

async function start(): Promise<{ erp: MisbehavingErp; engine: RunningEngine }> {
  const { mapping } = guideExample();
  erp = await startMisbehavingErp({ basePath: '/api' });
  engine = await startEngine(mappingFromText(mapping.replace('https://erp.example.com/api', erp.url)));
  return { erp, engine };
}

describe('the guide on call templates', () => {
  it('sends the requests it shows, with the template\'s query and headers merged into each call\'s', async () => {
    const { erp, engine } = await start();
    erp.on('POST /restlet', () => json({ success: true, data: { number: 'A-1', name: 'Bolt' } }));
    erp.on('POST /record/putwall', () => json({ id: 7 }));
    expect(await engine.call('GET', '/Items/A-1')).toMatchObject({ isResultSuccess: true, data: { number: 'A-1', name: 'Bolt' } });
    expect((await engine.call('POST', '/WorkOrders/CancelWorkOrderRequest', { workOrderNumber: 'SO-1' })).isResultSuccess).toBe(true);
    expect((await engine.call('POST', '/WorkOrders/ForPutWall', { workOrderNumber: 'SO-1', itemNumber: 'A-1', completedAmount: 1 })).isResultSuccess).toBe(true);
    expect(erp.requests.map((request) => `${request.method} ${request.url}`)).toEqual(guideExample().requests);
    const [item, cancel, placement] = erp.requests;
    expect(item.headers).toMatchObject({ 'content-type': 'application/json', 'x-wms-version': '2' });
    expect(JSON.parse(item.body)).toEqual({ number: 'A-1' });
    expect(cancel.headers).toMatchObject({ 'content-type': 'application/json', 'x-wms-version': '3' });
    expect(placement.headers['x-wms-version']).toBeUndefined();
  });

  it("judges a RESTlet answer by its template's rule, success: false, instead of the system's", async () => {
    const { erp, engine } = await start();
    erp.on('POST /restlet', () => json({ success: false, message: 'Order is closed' }));
    const refused = await engine.call('POST', '/WorkOrders/CancelWorkOrderRequest', { workOrderNumber: 'SO-1' });
    expect(refused).toMatchObject({ isResultSuccess: false, externalMessage: 'Order is closed' });
    // The system's rule does not judge a RESTlet call: an "error" field there is data, not a refusal.
    erp.on('POST /restlet', () => json({ success: true, error: { message: 'a field of the answer' }, data: { number: 'A-1' } }));
    expect(await engine.call('GET', '/Items/A-1')).toMatchObject({ isResultSuccess: true, data: { number: 'A-1' } });
  });

  it("judges a call without a template by the system's rule", async () => {
    const { erp, engine } = await start();
    erp.on('POST /record/putwall', () => json({ success: false, error: { message: 'Location PW-9 is blocked' } }));
    const refused = await engine.call('POST', '/WorkOrders/ForPutWall', { workOrderNumber: 'SO-1', itemNumber: 'A-1', completedAmount: 1 });
    expect(refused).toMatchObject({ isResultSuccess: false, externalMessage: 'Location PW-9 is blocked' });
  });

  it('shows the message validate prints for a problem in a template', () => {
    const text = yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api',
      '  calls:',
      '    rpc:',
      '      method: POST',
      '      path: /jsonrpc',
      '      headers:',
      '        X-Model: "{$uppercas(input.model)}"',
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - { name: one, use: rpc }',
      '      - { name: two, use: rpc }',
      '    output: calls.two.body');
    const [issue] = errorsOf(text);
    expect(fs.readFileSync(path.join(ROOT, GUIDE), 'utf8').split('\n')).toContain(formatIssue(issue));
  });
});
