/**
 * Issue 44: system.rateLimit paces the calls to a system before it says no. A REST ERP that allows 4
 * requests a second (a burst of 4) and answers 429 past it: 12 lookups at once all succeed, none of them
 * refused, slower rather than failed. Without the setting the same burst fails most lookups (429, no retry).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, head, startEngine, type RunningEngine } from '../support/engine';
import { json, startMisbehavingErp, status, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

/** The ERP's own quota: a bucket of 4 refilled at 4 a second, counted on its side. */
function quota(perSecond: number): () => boolean {
  let level = perSecond;
  let at = performance.now();
  return () => {
    const now = performance.now();
    level = Math.min(perSecond, level + ((now - at) / 1000) * perSecond);
    at = now;
    if (level < 1) return false;
    level -= 1;
    return true;
  };
}

const getItem = `  GetItem:
    deadlineMs: 10000
    calls:
      - { name: item, method: GET, path: "/items/{input.number}" }
    output: '{"number": calls.item.body.number}'
`;

async function burst(rateLimit: string): Promise<{ ok: number; refused: number }> {
  erp = await startMisbehavingErp();
  const allowed = quota(4);
  let refused = 0;
  erp.onAny((request) => {
    if (!allowed()) {
      refused += 1;
      return status(429);
    }
    return json({ number: request.path.split('/').pop() });
  });
  engine = await startEngine(`${head(erp.url, rateLimit)}${getItem}`);
  const replies = await Promise.all(Array.from({ length: 12 }, (_, index) => engine!.get(`/Items/A-${index}`)));
  replies.forEach((reply, index) => reply.body.isResultSuccess && expect(reply.body.data).toEqual({ number: `A-${index}` }));
  return { ok: replies.filter((reply) => reply.body.isResultSuccess).length, refused };
}

describe('system.rateLimit on a REST ERP with a request-per-second quota', () => {
  it('12 lookups at once: all succeed, the ERP never had to refuse one', async () => {
    // A little under the ERP's quota: a burst that reaches the ERP late (new connections) counts against its next second.
    expect(await burst('rateLimit: { capacity: 3, refillPerSecond: 3.5 }')).toEqual({ ok: 12, refused: 0 });
  });

  it('without it, the same burst is refused past the quota', async () => {
    const { ok, refused } = await burst('');
    expect(ok).toBeLessThan(12);
    expect(refused).toBeGreaterThan(0);
  });
});
