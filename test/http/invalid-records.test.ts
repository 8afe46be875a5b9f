/**
 * onInvalidRecord (issue 17): one bad record need not stop a warehouse. With skip, a work order that
 * fails the contract check is left out of the list, logged with its number and problems, counted, and
 * named on the engine's answer; the default still fails the whole answer.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/core/engine';
import { NO_METER, type Meter } from '../../engine/metrics/meter';
import { createMetrics } from '../../engine/server/metrics';
import { closeAfterEach, head, mappingFromText, type RunningEngine, startEngine } from '../support/engine';
import { errorsOf } from '../support/mapping-issues';
import { json, startErpAnswering, type MisbehavingErp } from '../support/misbehaving-erp';

const ORDERS = [
  { no: 'SO-1', due: '2026-12-01T10:00:00Z', lines: [{ article: 'A-1', qty: 2 }] },
  { no: 'SO-2', due: 'next week', lines: [{ article: 'A-2', qty: 1 }] },
  { no: 'SO-3', due: '2026-12-02T10:00:00Z', lines: [{ article: 'A-3', qty: 1.5 }] },
  { no: 'SO-4', due: '2026-12-03T10:00:00Z', lines: [{ article: 'A-4', qty: 5 }] },
];

const operation = (setting: string) => `  GetWorkOrders:
${setting ? `    ${setting}\n` : ''}    calls:
      - name: orders
        method: GET
        path: /orders
    output: |
      calls.orders.body.orders.{
        "number": no,
        "dueDate": due,
        "requests": [lines.{ "itemNumber": article, "requestedAmount": qty }]
      }
`;

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, new Writable({ write(chunk, _enc, next) { lines.push(JSON.parse(String(chunk)) as Record<string, unknown>); next(); } }));
  return { log, lines };
}

describe('onInvalidRecord', () => {
  it('default (fail): one bad work order fails the whole answer', async () => {
    erp = await startErpAnswering(() => json({ orders: ORDERS }));
    engine = await startEngine(head(erp.url) + operation(''));
    const answer = await engine.engine.handle({ method: 'GET', path: '/WorkOrders' });
    expect(answer.outcome?.resultName).toBe('WorkOrderInvalid');
    expect(answer.failure?.problems.map((p) => p.path)).toEqual(['data/1/dueDate', 'data/2/requests/0/requestedAmount']);
  });

  it('skip: the bad ones are left out, logged by number with their problems, counted, and named on the answer', async () => {
    erp = await startErpAnswering(() => json({ orders: ORDERS }));
    const { log, lines } = capture();
    const metrics = createMetrics({ processMetrics: false });
    engine = await startEngine(head(erp.url) + operation('onInvalidRecord: skip'), { log, meter: metrics });
    const answer = await engine.engine.handle({ method: 'GET', path: '/WorkOrders' });
    expect(answer.outcome?.resultName).toBe('Succeed');
    expect((answer.outcome?.data as { number: string }[]).map((order) => order.number)).toEqual(['SO-1', 'SO-4']);
    expect(answer.skipped?.map((record) => [record.index, record.number, record.problems.map((p) => p.path)])).toEqual([
      [1, 'SO-2', ['/dueDate']],
      [2, 'SO-3', ['/requests/0/requestedAmount']],
    ]);
    const warnings = lines.filter((line) => typeof line.msg === 'string' && line.msg.includes('onInvalidRecord: skip'));
    expect(warnings.map((line) => [line.record, line.level])).toEqual([['SO-2', 40], ['SO-3', 40]]);
    expect(warnings[0].msg).toMatch(/^record SO-2 left out of the answer \(onInvalidRecord: skip\): \/dueDate must match format "date-time"/);
    expect(await metrics.text()).toContain('adapter_records_skipped_total{mapping="connectivity-test",operation="GetWorkOrders"} 2');
    // Support staff see the same in the request journal (and dry-run in its trace), after the output.
    const entry = await engine.engine.journal.get(answer.entry?.().id ?? 'none');
    const steps = entry?.steps.map((step) => step.step);
    expect(steps?.indexOf('skipped')).toBeGreaterThan(steps?.indexOf('output') ?? Infinity);
    expect(entry?.steps.flatMap((step) => (step.step === 'skipped' ? [[step.label, step.message]] : []))).toEqual([
      ['data[1]', expect.stringMatching(/^record SO-2 left out \(onInvalidRecord: skip\): \/dueDate must match format/)],
      ['data[2]', expect.stringMatching(/^record SO-3 left out \(onInvalidRecord: skip\): \/requests\/0\/requestedAmount /)],
    ]);
  });

  it('skip: more bad records than the contract check describes are all left out', async () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ no: `SO-${i}`, due: i % 2 === 0 ? 'soon' : '2026-12-01T10:00:00Z', lines: [{ article: 'A', qty: 1 }] }));
    erp = await startErpAnswering(() => json({ orders: many }));
    const skipped: string[] = [];
    const meter: Meter = { ...NO_METER, recordSkipped: ({ operation: id }) => skipped.push(id) };
    engine = await startEngine(head(erp.url) + operation('onInvalidRecord: skip'), { meter });
    const answer = await engine.engine.handle({ method: 'GET', path: '/WorkOrders' });
    expect(answer.outcome?.resultName).toBe('Succeed');
    expect((answer.outcome?.data as unknown[]).length).toBe(125);
    expect(skipped.length).toBe(125);
  });

  it('is refused on a route that answers no list', () => {
    const text = `${head('http://erp.test')}  GetWorkOrderByCode:
    onInvalidRecord: skip
    calls:
      - { name: order, method: GET, path: /orders }
    output: calls.order.body
`;
    expect(errorsOf(text)).toEqual([expect.objectContaining({ code: 'SETTING_NOT_FOR_ROUTE', line: 9, col: 22 })]);
    expect(() => createEngine({ mappings: [mappingFromText(head('http://erp.test') + operation('onInvalidRecord: skip'))] })).not.toThrow();
  });
});
