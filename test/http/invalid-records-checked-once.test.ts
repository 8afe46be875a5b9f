/**
 * onInvalidRecord: skip checks the list until what is left passes; that last check is the contract
 * check of the answer, so the records are not checked once more after it (AJV over every record of a
 * long list is a tenth of a list request's CPU).
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../engine/contract/routes';
import { createSchemaRegistry, type Validator } from '../../engine/contract/schema-registry';
import { createHttpClient } from '../../engine/http/client';
import { ErpConnection } from '../../engine/http/connection';
import type { FlowOperation } from '../../engine/mapping/model';
import { runFlow } from '../../engine/pipeline/run-operation';
import { head, mappingFromText } from '../support/engine';
import { json, startMisbehavingErp } from '../support/misbehaving-erp';

const ORDERS = [
  { no: 'SO-1', due: '2026-12-01T10:00:00Z', lines: [{ article: 'A-1', qty: 2 }] },
  { no: 'SO-2', due: 'next week', lines: [{ article: 'A-2', qty: 1 }] },
  { no: 'SO-3', due: '2026-12-02T10:00:00Z', lines: [{ article: 'A-3', qty: 4 }] },
];

/** The contract's validator of the route's data, telling how long each list it checked was. */
function countingChecks(schema: JsonSchema | null, lengths: number[]): Validator {
  if (!schema) throw new Error('GET /WorkOrders answers data');
  const real = createSchemaRegistry().compile(schema);
  return Object.assign((value: unknown, limit?: number) => real(value, limit), {
    inSlices: (value: unknown, limit?: number) => {
      lengths.push(Array.isArray(value) ? value.length : -1);
      return real.inSlices(value, limit);
    },
  });
}

describe('onInvalidRecord: skip', () => {
  it('checks the records it answers once: the check that found nothing more to leave out is the answer’s', async () => {
    const erp = await startMisbehavingErp({ basePath: '/api' });
    const http = createHttpClient();
    try {
      erp.on('GET /orders', () => json({ orders: ORDERS }));
      const mapping = mappingFromText(`${head(erp.url)}  GetWorkOrders:
    onInvalidRecord: skip
    calls: [{ name: orders, method: GET, path: /orders }]
    output: 'calls.orders.body.orders.{ "number": no, "dueDate": due, "requests": [lines.{ "itemNumber": article, "requestedAmount": qty }] }'
`);
      const operation = mapping.operations.get('GetWorkOrders') as FlowOperation;
      const lengths: number[] = [];
      const outcome = await runFlow(operation, {}, countingChecks(operation.route.dataSchema, lengths), { connection: new ErpConnection(mapping.system, http) });
      expect((outcome.data as { number: string }[]).map((order) => order.number)).toEqual(['SO-1', 'SO-3']);
      // All three, then the two left, which pass: nothing is checked after that.
      expect(lengths).toEqual([3, 2]);
    } finally {
      http.close();
      await erp.close();
    }
  });
});
