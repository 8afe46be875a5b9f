/**
 * A refusal rule without `retryable` leaves the decision to the status, as it was without the rule: an
 * outbox delivery refused inside a 503 is tried again later ("not now"), one refused inside a 200 is
 * dead at once. Nothing the ERP said "not now" to goes to the dead letters.
 */
import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../engine/delivery/delivery';
import { OperationFailure } from '../../engine/errors';
import { runFlow } from '../../engine/pipeline/run-operation';
import type { FlowOperation } from '../../engine/mapping/model';
import { head, mappingFromText } from '../support/engine';
import { json, startMisbehavingErp } from '../support/misbehaving-erp';
import { ErpConnection } from '../../engine/http/connection';
import { createHttpClient } from '../../engine/http/client';

describe('a refusal rule without retryable', () => {
  it.each([
    [200, 'dead'],
    [503, 'retry'],
  ])('an outbox delivery refused inside a %i is %s', async (status, verdict) => {
    const erp = await startMisbehavingErp({ basePath: '/api' });
    const http = createHttpClient();
    try {
      erp.on('POST /cancel', () => ({ ...json({ error: { message: 'locked' } }), status }));
      const mapping = mappingFromText(`${head(erp.url, 'refusal: { when: "$exists(response.body.error)", message: response.body.error.message }')}  CancelPutWallItem:
    calls: [{ name: cancel, method: POST, path: /cancel, body: input }]
`);
      const operation = mapping.operations.get('CancelPutWallItem') as FlowOperation;
      const failure = await runFlow(operation, { workOrderNumber: 'WO-1' }, undefined, { connection: new ErpConnection(mapping.system, http) }).then(() => undefined, (error: unknown) => error);
      expect(failure).toBeInstanceOf(OperationFailure);
      expect((failure as OperationFailure).kind).toBe('ERP_REFUSED');
      expect(verdictOf(failure).kind).toBe(verdict);
    } finally {
      http.close();
      await erp.close();
    }
  });
});
