import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, loadMapping, type EngineRequest } from '../../engine';
import { orderCsv } from '../../bench/lib/order-csv';
import { exampleEnv } from '../../examples/example-env';
import { EXPORT_COLUMNS, exportValuesRequest } from '../../bench/requests';

// A large request must not hold up the others (issue 13, "no stalls"): while the example mapping reads a
// 50,000-line file or exports 50,000 orders, a cheap request sent after it started is answered before
// it ends. Observed by order of completion, not by time: before the engine worked in time slices, the
// large request's promise settled before any timer of the process could run.

const EXAMPLE = path.join(__dirname, '..', '..', 'mappings', 'example.yaml');
const engine = createEngine({ mappings: [loadMapping(EXAMPLE, { env: exampleEnv('http://127.0.0.1:9') }).mapping], outbox: 'inline' });
afterAll(() => engine.close());

const cheap: EngineRequest = { method: EXPORT_COLUMNS.method, path: EXPORT_COLUMNS.path };

async function completionOrder(large: EngineRequest, answers: number): Promise<string[]> {
  const finished: string[] = [];
  const largeDone = engine.handle(large).then((answer) => {
    expect(answer.body).toMatchObject({ isResultSuccess: true });
    expect((answer.body as { data: unknown[] }).data).toHaveLength(answers);
    finished.push('large');
  });
  // Sent once the large request is under way: the first turn of the event loop after it started.
  const cheapDone = new Promise<void>((resolve, reject) => {
    setImmediate(() => {
      engine.handle(cheap).then((answer) => {
        expect(answer.body).toMatchObject({ isResultSuccess: true });
        finished.push('cheap');
        resolve();
      }, reject);
    });
  });
  await Promise.all([largeDone, cheapDone]);
  return finished;
}

describe('a cheap request during a large one (example mapping)', () => {
  it('is answered before a 50,000-line file is read', async () => {
    const file: EngineRequest = { method: 'POST', path: '/WorkOrders/File', body: { fileType: 1, fileContent: Buffer.from(orderCsv(50_000), 'utf8').toString('base64') } };
    expect(await completionOrder(file, 10_000)).toEqual(['cheap', 'large']);
  }, 120_000);

  it('is answered before a 50,000-order export is', async () => {
    const request = exportValuesRequest(50_000);
    const large: EngineRequest = { method: request.method, path: request.path, body: request.body };
    expect(await completionOrder(large, 50_000)).toEqual(['cheap', 'large']);
  }, 120_000);
});
