import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { findRoute, ROUTES } from './routes';
import { createSchemaRegistry } from './schema-registry';
import { contractSchemaFiles } from './schema-files';

describe('schema registry', () => {
  const schema = findRoute('GetReport')!.inputSchema!;

  it('a lazy validator answers exactly as the compiled one', () => {
    const eager = createSchemaRegistry().compile(schema);
    const lazy = createSchemaRegistry().lazy(schema);
    for (const value of [{}, { workOrdersNumbers: ['A'], storageId: 'S', remainingRequests: {} }, { workOrdersNumbers: 'A' }, null]) {
      expect(lazy(value)).toEqual(eager(value));
    }
    expect(lazy({})).toEqual([
      { path: '/workOrdersNumbers', message: 'is required' },
      { path: '/storageId', message: 'is required' },
      { path: '/remainingRequests', message: 'is required' },
    ]);
  });

  it('a work order that is not null and not valid gets its own problems, without the null branch\'s and the anyOf\'s (issue 31)', () => {
    const check = createSchemaRegistry().compile(findRoute('GetWorkOrderByCode')!.dataSchema!);
    const problems = check({ number: 'SO-1', dueDate: '2026-12-01T00:00:00Z', requests: [{ itemNumber: 'A', quantity: 1, unitOfMeasure: 1, requestType: 1 }] });
    expect(problems).toEqual([
      { path: '/requests/0/requestedAmount', message: 'is required' },
      { path: '/requests/0/quantity', message: 'is not a property the contract defines' },
    ]);
    // A value that is neither, with nothing deeper to say, still says what it must be.
    expect(check('SO-1').length).toBeGreaterThan(0);
  });

  it('a list of 60,000 wrong values gets one problem per mistake from one pass over AJV\'s 120,000 errors (a search per error never ended)', async () => {
    const check = createSchemaRegistry().compile({ type: 'array', items: { type: 'integer', enum: [1, 2] } });
    const wrong = Array.from({ length: 60_000 }, (_, index) => `#${index}`);
    for (const problems of [check(wrong, 3), await check.inSlices(wrong, 3)]) {
      // The enum's list of values says more than "must be integer": one problem per value, then the count.
      expect(problems.slice(0, 3)).toEqual([0, 1, 2].map((index) => ({ path: `/${index}`, message: 'must be one of 1, 2' })));
      expect(problems).toHaveLength(4);
    }
  });

  it('is only given valid JSON Schema: the contract files and the routes\' schemas (it does not check them itself)', () => {
    const meta = new Ajv({ allErrors: true });
    const given = [...contractSchemaFiles().values(), ...ROUTES.flatMap((route) => [route.inputSchema, route.dataSchema])];
    for (const schema of given) {
      if (schema === null) continue;
      expect(meta.validateSchema(schema), JSON.stringify(meta.errors)).toBe(true);
    }
  });

  it('still refuses a schema that is not one the contract could hold (strict mode stays on)', () => {
    expect(() => createSchemaRegistry().compile({ type: 'object', propertys: {} })).toThrow(/unknown keyword/);
  });
});
