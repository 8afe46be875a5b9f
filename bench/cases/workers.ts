import { runLoad, startAdapter, startServe, timedRequest } from '../lib/processes';
import { median, spread, type Row } from '../lib/report';
import { ALL_ORDERS, CODE_LOOKUP, type BenchRequest } from '../requests';
import { exampleEnv } from '../../examples/example-env';
import { EXAMPLE_MAPPING, ratio, type CaseContext, type CaseResult } from './context';

/**
 * Case 5: what `serve --workers N` gives. Throughput of `adapter-engine serve` with 1 and with 2
 * workers, each against the hand-written baseline (one process) from the same run. On a 2-core machine
 * the load generator and the ERP share the cores with the workers, so 2 workers cannot double anything:
 * the figure says how much of the second core the engine gets.
 */

const CONNECTIONS = 16;

async function rps(url: string, request: BenchRequest, context: CaseContext): Promise<number> {
  const run = { url: url + request.path, method: request.method, body: request.body === undefined ? undefined : JSON.stringify(request.body), connections: CONNECTIONS };
  const load = await runLoad({ ...run, ...(context.quick ? { amount: 100 } : { durationS: 5 }) });
  if (load.errors > 0 || load.non2xx > 0 || load.requests === 0) throw new Error(`${request.method} ${url}${request.path}: ${load.errors} errors, ${load.non2xx} non-2xx of ${load.requests}`);
  return load.requestsPerSecond;
}

async function checked(url: string, request: BenchRequest): Promise<void> {
  const answer = await timedRequest(url + request.path, request.method);
  if (answer.status !== 200 || (JSON.parse(answer.text) as { isResultSuccess?: boolean }).isResultSuccess !== true) throw new Error(`${url}${request.path} does not succeed: ${answer.text.slice(0, 300)}`);
}

export async function workersCase(context: CaseContext): Promise<CaseResult> {
  const routes = [
    { id: 'code', name: 'GET /WorkOrders/Code', request: CODE_LOOKUP },
    { id: 'all', name: `GET /WorkOrders (${context.erpOrders + 8} orders)`, request: ALL_ORDERS },
  ].slice(0, context.quick ? 1 : 2); // --quick only checks the harness: one route is enough
  const repeats = context.quick ? 1 : 3;
  const rows: Row[] = [];
  const baseline = await startAdapter({ kind: 'baseline', erpUrl: context.erpUrl, mappings: [] });
  try {
    const samples = new Map<string, number[]>();
    const add = (key: string, value: number) => samples.set(key, [...(samples.get(key) ?? []), value]);
    for (const workers of [1, 2]) {
      const engine = await startServe(['--workers', String(workers), EXAMPLE_MAPPING], exampleEnv(context.erpUrl));
      try {
        for (const route of routes) {
          await checked(engine.url, route.request);
          if (!context.quick) await rps(engine.url, route.request, context); // warm-up of every worker's JIT and pools
          for (let repeat = 0; repeat < repeats; repeat++) {
            add(`${route.id}.w${workers}`, await rps(engine.url, route.request, context));
            add(`${route.id}.baseline`, await rps(baseline.url, route.request, context));
          }
        }
      } finally {
        await engine.stop();
      }
      context.log(`case 5 with ${workers} worker(s): done`);
    }
    for (const route of routes) {
      const base = samples.get(`${route.id}.baseline`) ?? [];
      for (const workers of [1, 2]) {
        const values = samples.get(`${route.id}.w${workers}`) ?? [];
        rows.push({
          id: `workers.${route.id}.w${workers}`, case: `5 ${route.name}`, metric: `throughput, serve --workers ${workers}`, unit: 'req/s', better: 'higher',
          engine: median(values), baseline: median(base), ratio: ratio(median(values), median(base)), spread: { engine: spread(values), baseline: spread(base) },
          ...(workers === 1 && route === routes[0] ? { note: 'baseline: the hand-written adapter in one process; the load generator (autocannon) and the ERP run on the same cores' } : {}),
        });
      }
      // What the second worker added, as a multiple of one worker: the figure docs/operations.md quotes.
      const one = median(samples.get(`${route.id}.w1`) ?? []);
      const two = median(samples.get(`${route.id}.w2`) ?? []);
      rows.push({
        id: `workers.${route.id}.gain`, case: `5 ${route.name}`, metric: '--workers 2 ÷ --workers 1', unit: '×', better: 'higher',
        engine: one > 0 ? two / one : 0,
        ...(route === routes[0] ? { note: 'on 2 cores shared with the load generator and the ERP; on a machine with cores to spare, each added worker adds about one core: 1000 ÷ (case 1 adapter CPU per request, ms) requests/s' } : {}),
      });
    }
  } finally {
    await baseline.stop();
  }
  return { rows, skipped: [] };
}
