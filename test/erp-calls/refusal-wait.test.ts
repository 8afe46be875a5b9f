/**
 * Issue 44: a refusal that says "wait" (the rule's retryable gives true) is waited for on every call, not
 * only by outbox deliveries: the call is tried again within its retry budget, after the wait the answer
 * asks for (refusal.retryAfterMs) or the backoff. A wait past the operation's deadline is not waited:
 * the failure says the ERP asked to wait, and for how long.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, head, startEngine, type RunningEngine } from '../support/engine';
import { json, sequence, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

const BUSY = (waitMs: number) => json({ error: { code: 'BUSY', message: 'Too many requests, try again shortly', waitMs } });
const ITEM = json({ item: { number: 'A-1', name: 'Bolt' } });

const refusal = (extra: string) => `retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 }
refusal:
  when: $exists(response.body.error)
  message: response.body.error.message
  retryable: response.body.error.code = "BUSY"
${extra}`;

const getItem = (deadline = '') => `  GetItem:
${deadline}    calls:
      - { name: item, method: GET, path: "/items/{input.number}" }
    output: 'calls.item.body.item'
`;

describe('a refusal whose retryable gives true, on a direct call', () => {
  it('is tried again after the wait it asks for, and the third answer is the item', async () => {
    erp = await startMisbehavingErp();
    erp.on('GET /items/A-1', sequence(BUSY(40), BUSY(40), ITEM));
    engine = await startEngine(`${head(erp.url, refusal('  retryAfterMs: response.body.error.waitMs'))}${getItem()}`);
    const started = performance.now();
    const reply = await engine.get('/Items/A-1');
    expect(reply.body).toMatchObject({ isResultSuccess: true, data: { number: 'A-1', name: 'Bolt' } });
    expect(erp.count('GET /items/A-1')).toBe(3);
    // Two waits of 40 ms were asked for (the backoff would have been at most 20 ms each).
    expect(performance.now() - started).toBeGreaterThanOrEqual(80);
  });

  it('without retryAfterMs, the backoff', async () => {
    erp = await startMisbehavingErp();
    erp.on('GET /items/A-1', sequence(BUSY(60_000), ITEM));
    engine = await startEngine(`${head(erp.url, refusal(''))}${getItem()}`);
    expect((await engine.get('/Items/A-1')).body).toMatchObject({ isResultSuccess: true });
    expect(erp.count('GET /items/A-1')).toBe(2);
  });

  it('a refusal that does not pass is not repeated', async () => {
    erp = await startMisbehavingErp();
    erp.on('GET /items/A-1', sequence(json({ error: { code: 'DENIED', message: 'Access denied' } }), ITEM));
    engine = await startEngine(`${head(erp.url, refusal(''))}${getItem()}`);
    expect((await engine.get('/Items/A-1')).body).toMatchObject({ isResultSuccess: false, externalMessage: 'Access denied' });
    expect(erp.count('GET /items/A-1')).toBe(1);
  });

  it('past the budget: the failure keeps the ERP\'s words and says it asked to wait, and for how long', async () => {
    erp = await startMisbehavingErp();
    erp.on('GET /items/A-1', () => BUSY(30));
    engine = await startEngine(`${head(erp.url, refusal('  retryAfterMs: response.body.error.waitMs'))}${getItem()}`);
    const reply = await engine.get('/Items/A-1');
    expect(reply.body).toMatchObject({ isResultSuccess: false, result: 4, externalMessage: 'Too many requests, try again shortly' });
    expect(JSON.stringify(reply.body.validationStatus)).toContain('asked to wait 30 ms after 3 attempts');
    expect(erp.count('GET /items/A-1')).toBe(3);
  });

  it('a wait past the operation\'s deadline is not waited: the failure says how long the ERP asked to wait', async () => {
    erp = await startMisbehavingErp();
    erp.on('GET /items/A-1', sequence(BUSY(5000), ITEM));
    engine = await startEngine(`${head(erp.url, refusal('  retryAfterMs: response.body.error.waitMs'))}${getItem('    deadlineMs: 1000\n')}`);
    const reply = await engine.get('/Items/A-1');
    expect(reply.body).toMatchObject({ isResultSuccess: false, externalMessage: 'Too many requests, try again shortly' });
    expect(JSON.stringify(reply.body.validationStatus)).toMatch(/asked to wait 5000 ms, which would pass the operation's deadline \(\d+ ms left of 1000 ms\)/);
    expect(erp.count('GET /items/A-1')).toBe(1);
  });

  it('retryAfterMs without retryable is refused at load', async () => {
    const { checkMappingText } = await import('../../engine/mapping/load');
    const text = `${head('http://erp.test', 'refusal: { when: "$exists(response.body.error)", retryAfterMs: "1000" }')}${getItem()}`;
    const result = checkMappingText(text, 'm.yaml', {});
    expect(result.issues.map((issue) => issue.message).join('\n')).toContain('there is no retryable');
  });
});
