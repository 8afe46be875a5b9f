import { describe, expect, it } from 'vitest';
import { findRoute } from '../../engine/contract/routes';
import { createAnsweringClient } from '../../engine/testing/answers';
import { createMasker } from '../../engine/mapping/mask';
import { runCase } from '../../engine/testing/run-case';
import { createEngine } from '../../engine/core/engine';
import { head, mappingFromText } from '../support/engine';

/** The dry-run trace carries the attempts of a retried call and marks answers from the cache. */
const mapping = mappingFromText(head('http://erp.test/api', 'retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 }') + `  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
        cache: { ttlMs: 60000 }
    output: '{ "number": calls.article.body.no }'
`);
const route = findRoute('GetItem')!;
const mask = createMasker([]);

describe('dry-run trace of connectivity', () => {
  it('shows how many attempts an answer took, and a cache hit', async () => {
    const client = createAnsweringClient({ answers: { article: [{ status: 503 }, { status: 503 }, { body: { no: 'A-1' } }] } });
    // One engine for both runs, as a server would be: the second request finds the first answer cached.
    const engine = createEngine({ mappings: [mapping], http: client });
    const first = await runCase(mapping, route, { number: 'A-1' }, client, mask, { engine });
    expect(first.resultName).toBe('Succeed');
    expect(first.steps.filter((s) => s.step === 'response')).toMatchObject([{ status: 200, attempts: 3, cached: false }]);
    const second = await runCase(mapping, route, { number: 'A-1' }, client, mask, { engine });
    await engine.close();
    expect(second.steps.filter((s) => s.step === 'response')).toMatchObject([{ status: 200, attempts: 0, cached: true }]);
    expect(client.log).toHaveLength(3);
  });
});
