/**
 * A header the mapping fills from the platform's input (`X-Site: "{input.StorageName}"`) must not let
 * that input write headers of its own: a value with a line break (or any character a header cannot
 * carry) is refused as the request is built, the platform gets OperationFailed saying which character,
 * and the ERP sees no request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { json, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
afterEach(async () => {
  await engine?.close();
  await erp?.close();
  engine = undefined;
  erp = undefined;
});

const operation = `  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
        headers: { X-Site: "{input.StorageName}" }
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`;

describe('header values made from the platform input', () => {
  it.each([
    ['a line break and a header of its own', 'WH-1\r\nX-Injected: yes', 'a line break'],
    ['a bare line feed', 'WH-1\nX-Injected: yes', 'a line break'],
    ['a NUL character', 'WH-1\u0000X', 'the character U+0000 at position 5'],
    ['a character outside Latin-1', 'WH-\u20ac', 'the character U+20AC at position 4'],
  ])('%s: refused before sending, with the route\'s failure', async (_what, site, said) => {
    erp = await startMisbehavingErp({ basePath: '/api' });
    erp.on('GET /orders/4711', () => json({ no: '4711' }));
    engine = await startEngine(head(erp.url) + operation);
    const reply = await engine.get(`/WorkOrders/Code?Code=4711&StorageName=${encodeURIComponent(site)}`);
    expect(reply.status).toBe(200);
    // OperationFailed: the request the mapping built cannot be sent; nothing was asked of the ERP.
    expect(reply.body).toMatchObject({ isResultSuccess: false, result: 0, externalMessage: null, data: null });
    expect(reply.body.validationStatus).toEqual([{ path: '', message: `calls.order.headers.X-Site contains ${said}, which a header cannot carry` }]);
    expect(erp.count()).toBe(0);
  });

  it('a plain value is sent as it is', async () => {
    erp = await startMisbehavingErp({ basePath: '/api' });
    erp.on('GET /orders/4711', () => json({ no: '4711' }));
    engine = await startEngine(head(erp.url) + operation);
    const reply = await engine.get('/WorkOrders/Code?Code=4711&StorageName=WH-1');
    expect(reply.body).toMatchObject({ isResultSuccess: true, data: { number: '4711' } });
    expect(erp.requests[0]!.headers['x-site']).toBe('WH-1');
  });
});
