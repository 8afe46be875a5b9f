import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/core/engine';
import { checkMappingFile, loadMapping } from '../../engine/mapping/load';
import { createHttpApp } from '../../engine/server/app';
import { CORPUS, corpusData, type CorpusMapping, type Twin } from './corpus';
import type { StandIn } from './erps/listen';
import { liveTransport } from './twins/transport';

/**
 * The corpus of bench case 11 (bench/integrator-mappings/): each mapping validates without errors and
 * with every expression compiled, and its hand-written twin answers every request of the route mix byte
 * for byte like the engine served over HTTP, both against the same stand-in ERP (small sizes here; the
 * bench runs the full ones).
 */

const ORDERS = 12;

async function engineOver(engine: Engine): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(createHttpApp(engine).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.each(CORPUS.map((entry) => [entry.name, entry] as const))('integrator mapping %s', (_name, entry: CorpusMapping) => {
  let erp: StandIn;
  let engine: Engine;
  let served: { url: string; server: http.Server };
  let twin: Twin;

  beforeAll(async () => {
    erp = await entry.start(ORDERS);
    engine = createEngine({ mappings: [loadMapping(entry.file, { env: entry.env(erp.url) }).mapping], outbox: 'inline' });
    served = await engineOver(engine);
    twin = entry.twin(liveTransport(erp.url), erp.url);
  });

  afterAll(async () => {
    await new Promise((resolve) => served.server.close(resolve));
    await engine.close();
    await erp.close();
  });

  it('validates with no errors, every expression compiled', () => {
    const { issues } = checkMappingFile(entry.file, { env: entry.env('http://127.0.0.1:1') });
    expect(issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    expect(issues.filter((issue) => issue.code === 'EXPRESSION_INTERPRETED')).toEqual([]);
  });

  it.each(entry.requests(corpusData(ORDERS)).map((request) => [request.name, request] as const))('%s: the twin answers byte for byte as the engine', async (_request, request) => {
    const query = new URLSearchParams(request.query ?? {}).toString();
    const response = await fetch(`${served.url}${request.path}${query ? `?${query}` : ''}`, {
      method: request.method,
      headers: request.body === undefined ? {} : { 'content-type': 'application/json' },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    const fromEngine = await response.text();
    expect(response.status).toBe(200);
    expect(await twin.handle(request)).toBe(fromEngine);
    // Not two equal failures: the list holds every order, a known order is found, the event is taken.
    const envelope = JSON.parse(fromEngine) as { isResultSuccess: boolean; data?: unknown };
    const unknown = request.name.includes('unknown');
    expect(envelope.isResultSuccess).toBe(!unknown);
    if (request.path === '/WorkOrders') expect(envelope.data).toHaveLength(ORDERS);
  });
});
