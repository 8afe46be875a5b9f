import { startAdapter, timedRequest, type AdapterProcess } from '../lib/processes';
import { median, spread, type Row } from '../lib/report';
import { exportValuesRequest } from '../requests';
import { EXAMPLE_MAPPING, ratio, type CaseContext, type CaseResult } from './context';

/**
 * Case 2: one POST /WorkOrders/WorkOrderExportValues with N orders, values from each order's
 * externalData. Time to the last byte of the answer, and the adapter's peak RSS. Each size gets fresh
 * processes, so the peak belongs to that size alone.
 */

const GOAL_ORDERS = 50_000;
const GOAL_MS = 1500;

async function timeExport(adapter: AdapterProcess, body: string, orders: number): Promise<number> {
  const answer = await timedRequest(`${adapter.url}/WorkOrders/WorkOrderExportValues`, 'POST', body);
  const envelope = JSON.parse(answer.text) as { isResultSuccess?: boolean; data?: unknown[] };
  if (envelope.isResultSuccess !== true || envelope.data?.length !== orders) {
    throw new Error(`${adapter.kind}: the export of ${orders} orders did not succeed: ${answer.text.slice(0, 300)}`);
  }
  return answer.ms;
}

export async function exportValuesCase(context: CaseContext): Promise<CaseResult> {
  const sizes = context.quick ? [100, 1000] : [1000, 10_000, GOAL_ORDERS];
  const repeats = context.quick ? 1 : 3;
  const warmUp = JSON.stringify(exportValuesRequest(100).body);
  const rows: Row[] = [];
  for (const orders of sizes) {
    const body = JSON.stringify(exportValuesRequest(orders).body);
    const times: Record<'engine' | 'baseline', number[]> = { engine: [], baseline: [] };
    const peakMb: Record<'engine' | 'baseline', number> = { engine: 0, baseline: 0 };
    for (const kind of ['engine', 'baseline'] as const) {
      const adapter = await startAdapter({ kind, erpUrl: context.erpUrl, mappings: kind === 'engine' ? [EXAMPLE_MAPPING] : [] }, kind === 'engine' ? context.engineNodeArgs : []);
      try {
        await timeExport(adapter, warmUp, 100);
        for (let repeat = 0; repeat < repeats; repeat++) times[kind].push(await timeExport(adapter, body, orders));
        peakMb[kind] = (await adapter.stats()).maxRssKb / 1024;
      } finally {
        await adapter.stop();
      }
    }
    context.log(`case 2 export of ${orders} orders: done`);
    const name = `2 ExportValues ${orders.toLocaleString('en-US')} orders`;
    const e = median(times.engine);
    const b = median(times.baseline);
    rows.push({
      id: `export.${orders}.time`, case: name, metric: 'time to answer', unit: 'ms', better: 'lower',
      engine: e, baseline: b, ratio: ratio(e, b), spread: { engine: spread(times.engine), baseline: spread(times.baseline) },
      goal: orders === GOAL_ORDERS ? { text: `engine ≤ ${GOAL_MS} ms`, met: e <= GOAL_MS } : undefined,
    });
    rows.push({
      id: `export.${orders}.rss`, case: name, metric: 'peak RSS', unit: 'MB', better: 'lower',
      engine: peakMb.engine, baseline: peakMb.baseline, ratio: ratio(peakMb.engine, peakMb.baseline),
    });
  }
  return { rows, skipped: [] };
}
