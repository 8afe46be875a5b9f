import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in ERP on 127.0.0.1 for the shadow and drift tests: GET /api/v1/orders/<code> answers an
 * order (quantity 9 for codes ending in 9, else 5). After `dropAfter` answers it leaves out `qty`, as
 * an ERP upgrade that drops a field would. It counts what reaches it.
 */
export async function startOrdersErp(options: { readonly dropAfter?: number } = {}): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  let answered = 0;
  const server = http.createServer((req, res) => {
    answered += 1;
    const code = decodeURIComponent(/\/orders\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '');
    const order: Record<string, unknown> = { no: code, state: 'OPEN', qty: code.endsWith('9') ? 9 : 5 };
    if (options.dropAfter !== undefined && answered > options.dropAfter) delete order.qty;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(order));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    count: () => answered,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** The mapping of both tests; `number` is the field a candidate changes. */
export function ordersMapping(number = 'calls.order.body.no', extraCall = ''): string {
  return `version: 1
name: acme
system:
  baseUrl: \${ERP_URL}
operations:
  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
${extraCall}    output: '{ "number": ${number}, "dueDate": "2026-12-01T00:00:00Z", "requests": [{ "itemNumber": "A-100", "requestedAmount": calls.order.body.qty ? calls.order.body.qty : 0 }] }'
`;
}

/** The value of one series of the Prometheus text, 0 when absent. */
export function seriesValue(metrics: string, series: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** The mapping's test file of the drift tests: its recorded answer teaches the shape of an order (qty among its fields). */
export const ORDERS_TESTS = `cases:
  - name: an open order
    operation: GetWorkOrderByCode
    input: { Code: SO-1 }
    answers:
      order: { body: { no: SO-1, state: OPEN, qty: 5 } }
    expect:
      result: Succeed
      data: { number: SO-1 }
`;
