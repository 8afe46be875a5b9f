import { describe, expect, it } from 'vitest';
import { mappingFromText } from '../../test/support/engine';

/** What drift watching counts as read: the names in the expressions' parse trees, not the file's words. */
const mapping = (output: string) => mappingFromText(`version: 1
name: acme
# The ERP also sends "warehouseState" and "internalNote"; this mapping needs neither.
system:
  baseUrl: http://erp.test/api
operations:
  GetWorkOrderByCode:
    calls:
      - name: order
        method: GET
        path: /orders/{input.Code}
    output: '${output}'
`);

describe('the fields a mapping reads', () => {
  it('are the path steps and strings of its expressions, not the words of its comments or keys', () => {
    const read = mapping('{ "number": calls.order.body.no, "dueDate": $lookup(calls.order.body, "due date"), "requests": [] }').fieldsRead;
    expect([...read.names]).toEqual(expect.arrayContaining(['calls', 'order', 'body', 'no', 'due date', 'number', 'requests']));
    expect(read.names.has('warehouseState')).toBe(false);
    expect(read.names.has('internalNote')).toBe(false);
    expect(read.names.has('baseUrl')).toBe(false);
    expect(read.every).toBe(false);
  });

  it('are every field when an expression reads with a wildcard', () => {
    expect(mapping('{ "number": calls.order.body.*[0], "dueDate": "2026-12-01T00:00:00Z", "requests": [] }').fieldsRead.every).toBe(true);
    expect(mapping('{ "number": calls.order.**.no, "dueDate": "2026-12-01T00:00:00Z", "requests": [] }').fieldsRead.every).toBe(true);
  });
});
