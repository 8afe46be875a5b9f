/**
 * Issue 18, item 4: the contract check of a request listed every problem of the input, so a 4 MB array
 * of 2,000,000 wrong elements on ExportValues gave a 100 MB answer (2.7 GB RSS). Input problems are now
 * capped as the file routes cap theirs: the first 100, then one entry saying how many more there are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchemaRegistry, listedOf, unlistedOf } from '../../engine/contract/schema-registry';
import { findRoute } from '../../engine/contract/routes';
import { loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';
import { deadErpUrl } from '../support/misbehaving-erp';

let engine: RunningEngine;
beforeAll(async () => {
  engine = await startEngine(loadExampleMapping(await deadErpUrl()));
});
afterAll(async () => {
  await engine.close();
});

describe('input problems are capped (issue 18, item 4)', () => {
  it('a 4 MB array of 2,000,000 numbers on ExportValues: 100 problems and a count, not 2,000,000', async () => {
    const raw = `[${new Array(2_000_000).fill('1').join(',')}]`;
    expect(raw.length).toBeGreaterThan(3_900_000);
    const started = performance.now();
    const response = await fetch(`${engine.url}/WorkOrders/WorkOrderExportValues`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
    const text = await response.text();
    console.info(`2,000,000 bad elements: ${Math.round(performance.now() - started)} ms, answer ${text.length} bytes`);
    const body = JSON.parse(text) as { isResultSuccess: boolean; validationStatus: { path: string; message: string }[] };
    expect(body.isResultSuccess).toBe(false);
    expect(body.validationStatus).toHaveLength(101);
    expect(body.validationStatus[0]).toEqual({ path: 'body/0', message: 'must be object' });
    expect(body.validationStatus[100].message).toBe('… and 1999900 more problem(s) not listed; the first 100 are shown');
    expect(text.length).toBeLessThan(20_000);
  }, 60_000);

  it('the cap applies to every validator, and a value with few problems is listed whole', () => {
    const check = createSchemaRegistry().compile(findRoute('GetExportValues')!.inputSchema!);
    expect(check([{ workOrderNumber: 1 }, 2])).toEqual([
      { path: '/0/workOrderNumber', message: 'must be string,null' },
      { path: '/1', message: 'must be object' },
    ]);
    const capped = check(Array.from({ length: 10 }, () => 'x'), 3);
    expect(listedOf(capped)).toHaveLength(3);
    expect(unlistedOf(capped)).toBe(7);
    expect(check([])).toEqual([]);
  });

  it('a long list inside one object (the lines of one work order) is capped too', () => {
    const check = createSchemaRegistry().compile(findRoute('GetWorkOrders')!.dataSchema!);
    const order = { number: 'SO-1', requests: Array.from({ length: 50_000 }, () => ({ itemNumber: 7 })) };
    const problems = check([order]);
    expect(problems).toHaveLength(101);
    expect(unlistedOf(problems)).toBeGreaterThanOrEqual(50_000 - 100);
  });
});
