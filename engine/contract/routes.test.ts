import { describe, expect, it } from 'vitest';
import { createSchemaRegistry } from './schema-registry';
import { ROUTES, resultNumber } from './routes';

// The success numbers of contract rule 5, written out here on purpose: a wrong table must fail a test.
const SUCCESS_NUMBERS: Record<string, [string, number]> = {
  GetWorkOrders: ['Succeed', 2], GetWorkOrderByCode: ['Succeed', 1], GetWorkOrdersForPutWall: ['Succeed', 2],
  ParseWorkOrderFile: ['Succeed', 1], GetReport: ['Succeed', 5], GetExportColumns: ['Success', 2],
  GetExportValues: ['Success', 2], GetExternalIndexableValueLabel: ['Success', 2], ConfirmPutWallPlacement: ['Succeed', 1],
  CancelPutWallItem: ['Succeed', 1], CancelWorkOrderRequest: ['Success', 2], RelocateCartContainers: ['Success', 1],
  AttachWorkOrder: ['Success', 0], ReportWorkOrderStatus: ['Succeed', 1], ConfirmWorkOrderStep: ['Success', 1],
  ConfirmCartWorkOrderStep: ['Success', 1], GetItem: ['Succeed', 1], ParseItemFile: ['Success', 1], GetItemImage: ['Success', 5],
};

describe('the contract table', () => {
  it('has the 19 routes, each once', () => {
    expect(ROUTES).toHaveLength(19);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(19);
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(19);
  });

  it.each(ROUTES.map((r) => [r.operationId, r] as const))('%s: success name and number as the contract lists them', (id, route) => {
    const [name, number] = SUCCESS_NUMBERS[id];
    expect(route.successResult).toBe(name);
    expect(resultNumber(route, name)).toBe(number);
    expect(route.results.AdapterNotDefined).toBeTypeOf('number');
  });

  it('numbers each route enum 0..n-1 without gaps', () => {
    for (const route of ROUTES) {
      expect(Object.values(route.results).sort((a, b) => a - b)).toEqual(Object.values(route.results).map((_, i) => i));
    }
  });

  it('event routes carry no data schema, data routes do', () => {
    for (const route of ROUTES) expect(route.dataSchema === null).toBe(route.kind === 'event');
  });

  it('every input and data schema compiles against the contract schemas', () => {
    for (const route of ROUTES) {
      if (route.inputSchema) expect(() => createSchemaRegistry().compile(route.inputSchema!)).not.toThrow();
      if (route.dataSchema) expect(() => createSchemaRegistry().compile(route.dataSchema!)).not.toThrow();
    }
  });

  it('gives the unmapped export routes the empty answers of contract rule 5', () => {
    const defaults = Object.fromEntries(ROUTES.filter((r) => r.unmappedDefault).map((r) => [r.operationId, r.unmappedDefault!.data]));
    expect(defaults).toEqual({ GetExportColumns: [], GetExportValues: [], GetExternalIndexableValueLabel: { label: '' } });
  });
});
