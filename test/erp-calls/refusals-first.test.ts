/**
 * Issue 39, "The ERP's 'no' is never turned into a success", over the wire: the refusal rule, an
 * unclaimed SOAP fault and an error status are judged before the operation's outcome rules. A rule may
 * re-classify a refused answer only to a failure result; a rule whose result is the route's success never
 * sees it; a rule that does not test response.status never claims a 401, 403 or 407. Every text the
 * platform is answered is masked (an ERP that quotes the key it got), and a 401/403 says the ERP refused
 * the adapter's credentials. Before, `$count(response.body.result) = 0` with `result: Succeed` turned
 * Odoo's AccessDenied into `Succeed []`, and marked a refused outbox event delivered.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/core/engine';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import type { OutboxStore } from '../../engine/outbox/store';
import { closeAfterEach, head, mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { expectRefused, ODOO_KEY, odooMappingWith } from '../support/jsonrpc-engine';
import { startJsonRpcErp, type JsonRpcErp } from '../support/jsonrpc-erp';
import { json, startMisbehavingErp, status, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: JsonRpcErp | undefined;
let rest: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
const engines: Engine[] = [];
const stores: OutboxStore[] = [];
closeAfterEach(afterEach, () => [engine, erp, rest, ...engines.splice(0), ...stores.splice(0)]);

/** GetWorkOrders with the rule of the issue: no result is an empty list, a success. */
const SUCCESS_ON_NO_RESULT = (text: string) => text.replace(
  '    output: calls.orders.items.$workOrder($, $$.calls.lines.body.result, $$.calls.products.body.result)',
  '    outcomes:\n      - when: call = "orders" and $count(response.body.result) = 0\n        result: Succeed\n    output: calls.orders.items.$workOrder($, $$.calls.lines.body.result, $$.calls.products.body.result)',
);

/** A revoked key: the engine logged in with ODOO_KEY, then the ERP stopped accepting it. */
async function revoked(change: (text: string) => string): Promise<{ erp: JsonRpcErp; engine: RunningEngine }> {
  erp = await startJsonRpcErp();
  engine = await startEngine(odooMappingWith(erp.url, change));
  // Logged in (GetItem is cached: another route does it), then revoked.
  expect((await engine.get('/WorkOrders/Code?Code=SO-1001')).body.isResultSuccess).toBe(true);
  erp.apiKey = 'odoo-key-2';
  erp.quoteKey = true;
  return { erp, engine };
}

const DENIED = 'Access Denied: the key *** is not valid for wms-bot';

describe('a refusal is judged before the outcome rules (JSON-RPC stand-in)', () => {
  it('a rule giving Succeed on "no result" never sees Odoo\'s AccessDenied inside a 200: AdapterApiCallFailed with Odoo\'s words, key masked', async () => {
    const { engine } = await revoked(SUCCESS_ON_NO_RESULT);
    const reply = await engine.get('/WorkOrders');
    expectRefused(reply, 'GetWorkOrders', 'AdapterApiCallFailed', DENIED);
    expect(reply.body.data).toBeNull();
    // The platform's texts never hold the key the ERP quoted: not externalMessage, not validationStatus.
    expect(JSON.stringify(reply.body)).not.toContain(ODOO_KEY);
    expect(reply.body.validationStatus).toEqual([{ path: 'calls.orders', message: `the external system refused: ${DENIED}` }]);
  });

  it('the same rule still answers Succeed [] when Odoo really has no orders', async () => {
    erp = await startJsonRpcErp();
    erp.models['sale.order'].splice(0);
    engine = await startEngine(odooMappingWith(erp.url, SUCCESS_ON_NO_RESULT));
    expect((await engine.get('/WorkOrders')).body).toMatchObject({ isResultSuccess: true, data: [] });
  });

  it('a rule may re-classify a refusal to a failure result; without a message of its own it keeps Odoo\'s words (masked)', async () => {
    const { engine } = await revoked((text) => text.replace(
      '      - when: $exists(response.body.result) and $count(response.body.result) = 0\n        result: ItemDoesNotExist',
      '      - when: response.body.error.data.name = "odoo.exceptions.AccessDenied"\n        result: ItemDoesNotExist\n      - when: $exists(response.body.result) and $count(response.body.result) = 0\n        result: ItemDoesNotExist',
    ));
    const reply = await engine.get('/Items/A-100');
    expectRefused(reply, 'GetItem', 'ItemDoesNotExist', DENIED);
  });

  it('an outcome message that quotes the key reaches the platform masked', async () => {
    const { engine } = await revoked((text) => text.replace(
      '      - when: $exists(response.body.result) and $count(response.body.result) = 0\n        result: ItemDoesNotExist',
      '      - when: response.body.error.data.name = "odoo.exceptions.AccessDenied"\n        result: ItemDoesNotExist\n        message: "\'Odoo said: \' & response.body.error.data.message"\n      - when: $exists(response.body.result) and $count(response.body.result) = 0\n        result: ItemDoesNotExist',
    ));
    expectRefused(await engine.get('/Items/A-100'), 'GetItem', 'ItemDoesNotExist', `Odoo said: ${DENIED}`);
  });

  it('an outbox event refused with AccessDenied is dead-lettered, never delivered, although a rule gives Succeed on "no result"', async () => {
    erp = await startJsonRpcErp();
    const store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'refusals-first-')));
    stores.push(store);
    // ReportWorkOrderStatus (delivery: outbox) is the last operation before the processing callbacks.
    const mapping = odooMappingWith(erp.url, (text) => text.replace(
      '\n\n  # ---------------------------------------------------------------- processing callbacks',
      '\n    outcomes:\n      - when: $count(response.body.result) = 0\n        result: Succeed\n\n  # ---------------------------------------------------------------- processing callbacks',
    ));
    const outbox = createEngine({ mappings: [mapping], outbox: store });
    engines.push(outbox);
    // A wrong key fails the login at once; a revoked one is refused on the call itself, after the login.
    expect((await outbox.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1001' } })).envelope).toMatchObject({ isResultSuccess: true });
    erp.apiKey = 'odoo-key-2';
    expect((await outbox.handle({ method: 'POST', path: '/WorkOrders/Status', body: { number: 'SO-1001', status: 3 } })).envelope).toMatchObject({ isResultSuccess: true });
    await outbox.deliverer!.runOnce();
    expect(await store.stats()).toMatchObject({ pending: 0, delivered: 0, dead: 1 });
    const [dead] = await store.list({ status: ['dead'] });
    expect(JSON.stringify(dead.last)).toContain('Access Denied');
    expect(erp.writes).toEqual([]);
  });
});

const ORDER_BY_CODE = (rule: string) => `  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    outcomes:
      - when: ${rule}
        result: WorkOrderDoesNotExist
        message: "'no such order'"
    output: '{ "number": calls.order.body.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }'
`;

async function restErp(rule: string): Promise<RunningEngine> {
  rest = await startMisbehavingErp({ basePath: '/api' });
  engine = await startEngine(head(rest.url, 'auth: { type: bearer, token: "${ERP_TOKEN}" }') + ORDER_BY_CODE(rule), { env: { ERP_TOKEN: 'tok-5e3c1a9b77' } });
  return engine;
}

describe('an authentication failure (401, 403, 407)', () => {
  it('a rule that does not test response.status never claims it; the platform is told the ERP refused the adapter\'s credentials, with the status', async () => {
    const engine = await restErp('$not($exists(response.body.no))');
    for (const code of [401, 403]) {
      rest!.on('GET /orders/SO-1', () => status(code, {}, { error: 'invalid token' }));
      const reply = await engine.get('/WorkOrders/Code?Code=SO-1');
      expectRefused(reply, 'GetWorkOrderByCode', 'AdapterApiCallFailed', `the external system refused the adapter's credentials (HTTP ${code})`);
      expect(reply.body.validationStatus).toEqual([{ path: 'calls.order', message: `the external system answered ${code}` }]);
    }
    rest!.on('GET /orders/SO-1', () => status(407, {}, { error: 'proxy' }));
    expectRefused(await engine.get('/WorkOrders/Code?Code=SO-1'), 'GetWorkOrderByCode', 'AdapterApiCallFailed', 'a proxy between the adapter and the external system refused the adapter\'s credentials (HTTP 407)');
    // A refusal rule that matches the 401 adds the ERP's words after the credentials.
    engine.engine.replaceMappings([mappingFromText(head(rest!.url, 'auth: { type: bearer, token: "${ERP_TOKEN}" }\nrefusal: { when: $exists(response.body.error), message: response.body.error }') + ORDER_BY_CODE('$not($exists(response.body.no))'), { ERP_TOKEN: 'tok-5e3c1a9b77' })]);
    rest!.on('GET /orders/SO-1', () => status(401, {}, { error: 'token tok-5e3c1a9b77 expired' }));
    expectRefused(await engine.get('/WorkOrders/Code?Code=SO-1'), 'GetWorkOrderByCode', 'AdapterApiCallFailed', 'the external system refused the adapter\'s credentials (HTTP 401): token *** expired');
    // The rule still judges the answers it is for.
    rest!.on('GET /orders/SO-1', () => json({ missing: true }));
    expectRefused(await engine.get('/WorkOrders/Code?Code=SO-1'), 'GetWorkOrderByCode', 'WorkOrderDoesNotExist', 'no such order');
  });

  it('a rule that tests response.status may claim it', async () => {
    const engine = await restErp('response.status = 403');
    rest!.on('GET /orders/SO-1', () => status(403, {}, { error: 'not your order' }));
    const reply = await engine.get('/WorkOrders/Code?Code=SO-1');
    expectRefused(reply, 'GetWorkOrderByCode', 'WorkOrderDoesNotExist', 'no such order');
    // A failure a rule decided has no validationStatus (docs/results.md): its words are externalMessage.
    expect(reply.body.validationStatus).toBeNull();
  });
});
