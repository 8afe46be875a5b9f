/**
 * Issue 44's proof: examples/shopify/shopify.yaml on the Shopify-style stand-in (real HTTP, GraphQL
 * executed against examples/shopify/schema.graphql, a cost bucket of 1,000 points restored at 50 a
 * second that answers HTTP 200 THROTTLED). Polls of 30 open orders of 1 to 72 lines each succeed every
 * time, complete (no list cut at first:), and no request is answered THROTTLED more than once; a burst of
 * 30 lookups gives 30 successes.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../engine/mapping/load';
import { PROJECT_ROOT } from '../../engine/paths';
import path from 'node:path';
import { closeAfterEach, startEngine, type RunningEngine } from '../support/engine';
import { articleImage } from '../../examples/erp/png';
import { linesOf, SHOPIFY_TOKEN, startShopifyErp, type ShopifyErp } from '../support/shopify-erp';

const MAPPING = path.join(PROJECT_ROOT, 'examples', 'shopify', 'shopify.yaml');

let erp: ShopifyErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

async function start(token = SHOPIFY_TOKEN): Promise<{ erp: ShopifyErp; engine: RunningEngine }> {
  erp = await startShopifyErp();
  engine = await startEngine(loadMapping(MAPPING, { env: { SHOPIFY_URL: erp.url, SHOPIFY_TOKEN: token, SHOPIFY_CDN: erp.cdnHost } }).mapping);
  return { erp, engine };
}

interface WorkOrder {
  readonly number: string;
  readonly description?: string;
  readonly requests: readonly { readonly itemNumber: string; readonly itemDescription?: string }[];
}

function expectAllOpenOrders(data: unknown): void {
  const orders = data as WorkOrder[];
  expect(orders.map((order) => order.number)).toEqual(Array.from({ length: 30 }, (_, index) => `#${1001 + index}`));
  orders.forEach((order, index) => expect(order.requests, order.number).toHaveLength(linesOf(index + 1)));
}

describe('examples/shopify/shopify.yaml', () => {
  it('passes validate --strict: it loads, its documents fit schema.graphql, its recorded tests pass, every expression exercised', () => {
    const binary = path.join(PROJECT_ROOT, 'dist', 'engine', 'cli', 'main.js');
    const output = execFileSync(process.execPath, [binary, 'validate', '--strict', '-e', 'SHOPIFY_URL=http://store.test', '-e', 'SHOPIFY_TOKEN=t', MAPPING], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', LOG_LEVEL: 'silent' } });
    expect(output).toContain('ok  5 of 19 routes mapped');
  });
});

describe('examples/shopify/shopify.yaml: polls and lookups under the store\'s cost bucket', () => {
  it('GET /WorkOrders succeeds on every poll, from a full bucket and from an empty one, complete, never THROTTLED twice', { timeout: 90_000 }, async () => {
    const { erp, engine } = await start();
    for (let poll = 1; poll <= 2; poll += 1) {
      const reply = await engine.get('/WorkOrders');
      expect(reply.body, `poll ${poll}: ${JSON.stringify(reply.body).slice(0, 400)}`).toMatchObject({ isResultSuccess: true, result: 2 });
      expectAllOpenOrders(reply.body.data);
    }
    expect(erp.maxThrottledPerRequest()).toBeLessThanOrEqual(1);
    // Two lines per order at most are in the order's own page: the others came from OrderLines, paged per order.
    expect(erp.requests.filter((request) => request.operationName === 'OrderLines').length).toBeGreaterThan(20);
  });

  it('a burst of 30 lookups: 30 successes (slower, not failed), none THROTTLED twice', { timeout: 90_000 }, async () => {
    const { erp, engine } = await start();
    const replies = await Promise.all(Array.from({ length: 30 }, (_, index) => engine.get(`/WorkOrders/Code?Code=%23${1001 + index}&StorageName=WH`)));
    replies.forEach((reply, index) => {
      expect(reply.body, JSON.stringify(reply.body).slice(0, 300)).toMatchObject({ isResultSuccess: true, result: 1, data: { number: `#${1001 + index}` } });
      expect((reply.body.data as WorkOrder).requests).toHaveLength(linesOf(index + 1));
    });
    expect(erp.maxThrottledPerRequest()).toBeLessThanOrEqual(1);
  });

  it('GraphQL nulls are absent fields: an order without a note has no description, a line without a variant title no itemDescription', async () => {
    const { engine } = await start();
    const reply = await engine.get('/WorkOrders/Code?Code=%231002&StorageName=WH');
    const order = reply.body.data as WorkOrder;
    expect(order).not.toHaveProperty('description');
    expect(order.requests[1]).not.toHaveProperty('itemDescription');
    expect(order.requests[0]).toHaveProperty('itemDescription', 'Size 1');
  });

  it('an unknown order is WorkOrderDoesNotExist', async () => {
    const { engine } = await start();
    expect((await engine.get('/WorkOrders/Code?Code=%239999&StorageName=WH')).body).toMatchObject({ isResultSuccess: false, result: 2, externalMessage: 'Order #9999 is not known in the store' });
  });

  it('a wrong access token: the 401\'s plain-text errors is the refusal\'s message', async () => {
    const { engine } = await start('shpat_revoked');
    expect((await engine.get('/Items/SKU-101')).body).toMatchObject({ isResultSuccess: false, externalMessage: expect.stringContaining('[API] Invalid API key or access token (unrecognized login or wrong password)') as unknown as string });
  });

  it('an item by SKU', async () => {
    const { engine } = await start();
    expect((await engine.get('/Items/SKU-101')).body).toMatchObject({ isResultSuccess: true, data: { number: 'SKU-101', name: 'Article 101', externalIdentifier: 'gid://shopify/ProductVariant/7001', weight: 0.5 } });
  });

  it('an item\'s image comes from the store\'s CDN (system.assetHosts), without the access token; a redirect on the CDN is followed, one away from it is not', async () => {
    const { erp, engine } = await start();
    const image = await engine.get('/Items/IntegrateImage/SKU-101');
    expect(image.body, JSON.stringify(image.body)).toMatchObject({ isResultSuccess: true, data: articleImage('sku-101').toString('base64') });
    expect((await engine.get('/Items/IntegrateImage/SKU-138')).body).toMatchObject({ isResultSuccess: true, data: articleImage('sku-101').toString('base64') });
    const away = await engine.get('/Items/IntegrateImage/SKU-137');
    expect(away.body).toMatchObject({ isResultSuccess: false });
    expect(JSON.stringify(away.body.validationStatus)).toContain('which is not in system.assetHosts; the redirect is not followed');
    expect((await engine.get('/Items/IntegrateImage/SKU-103')).body).toMatchObject({ isResultSuccess: false, result: 4 });
    expect(erp.cdnRequests.map((request) => request.path)).toEqual(['/s/files/1/products/sku-101.png', '/s/files/1/products/moved.png', '/s/files/1/products/sku-101.png', '/s/files/1/products/away.png']);
    expect(erp.cdnRequests.some((request) => request.token)).toBe(false);
  });

  it('a url on a host not in system.assetHosts is not fetched', async () => {
    erp = await startShopifyErp();
    engine = await startEngine(loadMapping(MAPPING, { env: { SHOPIFY_URL: erp.url, SHOPIFY_TOKEN: SHOPIFY_TOKEN } }).mapping);
    const reply = await engine.get('/Items/IntegrateImage/SKU-101');
    expect(reply.body).toMatchObject({ isResultSuccess: false });
    expect(JSON.stringify(reply.body.validationStatus)).toContain(`is on ${erp.cdnHost}, which is not in system.assetHosts (cdn.shopify.com); it is not fetched`);
    expect(erp.cdnRequests).toEqual([]);
  });

  it('a completed order is fulfilled; fulfilling it again is refused with the store\'s userErrors message', async () => {
    const { erp, engine } = await start();
    const first = await engine.post('/WorkOrders/Status', { number: '#1003', status: 3 });
    expect(first.body, JSON.stringify(first.body)).toMatchObject({ isResultSuccess: true });
    expect(erp.orders[2]?.displayFulfillmentStatus).toBe('FULFILLED');
    expect((await engine.post('/WorkOrders/Status', { number: '#1003', status: 3 })).body).toMatchObject({ isResultSuccess: false, externalMessage: 'Order #1003 is already fulfilled' });
  });
});
