/**
 * Issue 29, item 6: what passed `validate` and failed only at run time, and what one mistake hid until
 * the next run, are reported at load, every problem of the file in one run.
 */
import { describe, expect, it } from 'vitest';
import { errorsOf, HEADER, yaml } from '../support/mapping-issues';

describe('every problem at load', () => {
  it('an unknown $function is a load error at its place, with the function meant', () => {
    const text = yaml(
      `${HEADER}functions:`, //  5
      '  workOrder: |', //  6
      '    function($o) { {"number": $o.id} }', //  7
      'operations:', //  8
      '  GetWorkOrderByCode:', //  9
      '    calls: [{ name: order, method: GET, path: "/o/{input.Code}" }]', // 10
      '    output: $workOrdr(calls.order.body)', // 11
    );
    const [error, ...more] = errorsOf(text);
    expect(more).toEqual([]);
    expect(error).toMatchObject({ code: 'FUNCTION_UNKNOWN', line: 11, col: 13 });
    expect(error.message).toContain('did you mean $workOrder?');
  });

  it('a name bound in the expression, a parameter and a built-in are no unknown functions', () => {
    const text = yaml(
      `${HEADER}operations:`,
      '  GetWorkOrderByCode:',
      '    calls: [{ name: order, method: GET, path: "/o/{input.Code}" }]',
      '    output: |',
      '      ( $f := function($x, $g) { $g($x) }; {"number": $f(calls.order.body.id, $string), "dueDate": "2026-01-01T00:00:00Z", "requests": []} )',
    );
    expect(errorsOf(text).map((issue) => issue.code)).toEqual([]);
  });

  it('a misspelt setting no longer hides a wrong result name or a JSONata error further down', () => {
    const text = yaml(
      `${HEADER}operations:`, //  5
      '  GetItem:', //  6
      '    calls:', //  7
      '      - name: article', //  8
      '        methd: GET', //  9
      '        path: /a', // 10
      '    output: calls.article.body', // 11
      '  GetWorkOrderByCode:', // 12
      '    calls: [{ name: order, method: GET, path: "/o/{input.Code}" }]', // 13
      '    outcomes:', // 14
      '      - when: response.status = 404', // 15
      '        result: WorkOrderNotFound', // 16
      '    output: calls.order.body.(', // 17
    );
    expect(errorsOf(text).map(({ code, line }) => [code, line])).toEqual([
      ['UNKNOWN_SETTING', 9],
      ['UNKNOWN_RESULT', 16],
      ['EXPRESSION_SYNTAX', 17],
    ]);
  });

  it('${VAR} inside an expression is refused, pointing to $secret', () => {
    const text = yaml(
      `${HEADER}operations:`,
      '  GetWorkOrderByCode:',
      '    calls: [{ name: order, method: POST, path: /o, body: \'{"key": "${ERP_KEY}"}\' }]',
      '    output: calls.order.body',
    );
    const [error] = errorsOf(text, { ERP_URL: 'http://erp.local', ERP_KEY: 'a"b' });
    expect(error).toMatchObject({ code: 'ENV_IN_EXPRESSION' });
    expect(error.message).toContain('$secret("ERP_KEY")');
    expect(error.message).not.toContain('a"b');
  });
});
