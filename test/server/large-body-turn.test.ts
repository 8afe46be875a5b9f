import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRecordingErp } from '../cli/cli-process';
import { head, startEngine } from '../support/engine';

/**
 * A large body is parsed in one go (JSON.parse of a 10 MB export takes 15–25 ms). The event loop must
 * turn between that parse and the engine's work on the request, so that other requests wait for one of
 * the two, not for both. Turns are counted by a setImmediate loop: work that runs in one turn sees one count.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  vi.restoreAllMocks();
});

const EVENT = `  CancelPutWallItem:
    calls:
      - name: cancel
        method: POST
        path: /cancellations
        body: '{ "docNo": input.workOrderNumber }'
`;

function countTurns(): { readonly now: () => number } {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  cleanups.push(() => {
    running = false;
  });
  return { now: () => turns };
}

async function whenParsedAndHandled(itemNumber: string): Promise<{ parsedAt: number; handledAt: number; success: unknown }> {
  const erp = await startRecordingErp({});
  cleanups.push(erp.close);
  const running = await startEngine(head(erp.url) + EVENT);
  cleanups.push(running.close);
  const turns = countTurns();
  const body = JSON.stringify({ workOrderNumber: 'SO-1', itemNumber });
  let parsedAt = -1;
  let handledAt = -1;
  const parse = JSON.parse;
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    if (text === body) parsedAt = turns.now();
    return parse(text, reviver) as unknown;
  });
  const handle = running.engine.handle.bind(running.engine);
  vi.spyOn(running.engine, 'handle').mockImplementation((request) => {
    if (request.path === '/WorkOrders/CancelPutWallItem') handledAt = turns.now();
    return handle(request);
  });
  const answer = await running.postRaw('/WorkOrders/CancelPutWallItem', body);
  return { parsedAt, handledAt, success: (answer.body as { isResultSuccess?: unknown }).isResultSuccess };
}

describe('a large request body', () => {
  it('is parsed, then the event loop turns before the engine handles the request', async () => {
    const { parsedAt, handledAt, success } = await whenParsedAndHandled('A'.repeat(2_000_000));
    expect(success).toBe(true);
    expect(parsedAt).toBeGreaterThan(0);
    expect(handledAt).toBeGreaterThan(parsedAt);
  });

  it('a small body is handled in the turn it was parsed in', async () => {
    const { parsedAt, handledAt, success } = await whenParsedAndHandled('A-1');
    expect(success).toBe(true);
    expect(parsedAt).toBeGreaterThan(0);
    expect(handledAt).toBe(parsedAt);
  });
});
