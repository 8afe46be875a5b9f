import { describe, expect, it } from 'vitest';
import { findRoute } from './routes';
import { createSchemaRegistry } from './schema-registry';

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
});
