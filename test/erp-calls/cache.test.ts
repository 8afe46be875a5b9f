import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResponseCache } from '../../engine/http/response-cache';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { json, sequence, startMisbehavingErp, status, type MisbehavingErp } from '../support/misbehaving-erp';

const itemOperation = (cache: string) => `  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
        cache: ${cache}
    outcomes:
      - when: response.status = 404
        result: ItemDoesNotExist
    output: '{ "number": calls.article.body.no, "name": calls.article.body.text }'
`;

let erp: MisbehavingErp;
let engine: RunningEngine | undefined;
beforeEach(async () => {
  erp = await startMisbehavingErp();
  for (const no of ['A-1', 'A-2']) erp.on(`GET /articles/${no}`, () => json({ no, text: `Article ${no}` }));
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await erp.close();
});

const item = (no: string) => ({ isResultSuccess: true, result: 1, validationStatus: null, externalMessage: null, data: { number: no, name: `Article ${no}` } });

describe('answer cache', () => {
  it('answers a repeated request from the cache, keyed by the request', async () => {
    engine = await startEngine(head(erp.url) + itemOperation('{ ttlMs: 60000 }'));
    expect(await engine.call('GET', '/Items/A-1')).toEqual(item('A-1'));
    expect(await engine.call('GET', '/Items/A-1')).toEqual(item('A-1'));
    expect(await engine.call('GET', '/Items/A-2')).toEqual(item('A-2'));
    expect(await engine.call('GET', '/Items/A-2')).toEqual(item('A-2'));
    expect(erp.count('GET /articles/A-1')).toBe(1);
    expect(erp.count('GET /articles/A-2')).toBe(1);
  });

  it('never keeps an error: neither an error status nor a 404 the rules turned into a result', async () => {
    erp.on('GET /articles/A-1', sequence(status(500), status(404), json({ no: 'A-1', text: 'Article A-1' })));
    engine = await startEngine(head(erp.url) + itemOperation('{ ttlMs: 60000 }'));
    expect(await engine.call('GET', '/Items/A-1')).toMatchObject({ isResultSuccess: false, result: 4 }); // AdapterApiCallFailed
    expect(await engine.call('GET', '/Items/A-1')).toMatchObject({ isResultSuccess: false, result: 2 }); // ItemDoesNotExist
    expect(await engine.call('GET', '/Items/A-1')).toEqual(item('A-1'));
    expect(await engine.call('GET', '/Items/A-1')).toEqual(item('A-1'));
    expect(erp.count()).toBe(3);
  });

  it('is bounded: beyond maxEntries the least recently used answer goes', async () => {
    engine = await startEngine(head(erp.url) + itemOperation('{ ttlMs: 60000, maxEntries: 1 }'));
    for (const no of ['A-1', 'A-2', 'A-1', 'A-1']) expect(await engine.call('GET', `/Items/${no}`)).toEqual(item(no));
    expect(erp.count('GET /articles/A-1')).toBe(2);
    expect(erp.count('GET /articles/A-2')).toBe(1);
  });

  it('keys by method, URL, headers and body, but not by credentials', () => {
    const base = { callName: 'c', method: 'POST', url: new URL('http://erp/a?x=1'), headers: { Accept: 'json' }, body: { a: 1 }, timeoutMs: 1, responseType: 'json' as const, maxResponseBytes: 1 };
    const key = ResponseCache.keyOf(base);
    expect(ResponseCache.keyOf({ ...base, headers: { accept: 'json' }, timeoutMs: 99 })).toBe(key);
    expect(ResponseCache.keyOf({ ...base, url: new URL('http://erp/a?x=2') })).not.toBe(key);
    expect(ResponseCache.keyOf({ ...base, body: { a: 2 } })).not.toBe(key);
    expect(ResponseCache.keyOf({ ...base, headers: { Accept: 'xml' } })).not.toBe(key);
  });
});
