/**
 * Mistakes that would otherwise load and then answer success with wrong data (issue 17): an expression
 * reading `calls.<name>` of a call the operation does not define, or before that call is made; a result
 * name misspelt; a required setting misspelt, reported once.
 */
import { describe, expect, it } from 'vitest';
import { errorsOf, expectOnlyError, HEADER, yaml } from '../support/mapping-issues';

/** GetWorkOrders with two calls, orders then lines; `extra` lines go under the second call. */
const twoCalls = (extra: string[], output = 'calls.orders.items') => yaml(
  `${HEADER}operations:`, //  5
  '  GetWorkOrders:', //  6
  '    calls:', //  7
  '      - name: orders', //  8
  '        method: GET', //  9
  '        path: /orders', // 10
  '      - name: lines', // 11
  '        method: GET', // 12
  ...extra, // 13…
  `    output: ${output}`,
);

describe('calls.<name> that the operation does not define (CALL_NOT_DEFINED)', () => {
  it('the typo of issue 17, output: calls.ordrs.items.$workOrder($), at the name, suggesting orders', () => {
    const text = yaml(
      `${HEADER}functions:`, //  5
      '  workOrder: |', //  6
      '    function($o) { {"number": $o.id} }', //  7
      'operations:', //  8
      '  GetWorkOrders:', //  9
      '    calls:', // 10
      '      - name: orders', // 11
      '        method: GET', // 12
      '        path: /orders', // 13
      '        paginate: { style: page, items: response.body.orders }', // 14
      '    output: calls.ordrs.items.$workOrder($)', // 15
    );
    const issue = expectOnlyError(text, { code: 'CALL_NOT_DEFINED', line: 15, col: 19, mentions: ['calls.ordrs', 'GetWorkOrders', 'did you mean calls.orders?'] });
    expect(issue.path).toBe('operations.GetWorkOrders.output');
  });

  it('in a path placeholder, at the column inside the template', () => {
    expectOnlyError(twoCalls(['        path: /lines/{calls.ordr.body.id}']), { code: 'CALL_NOT_DEFINED', line: 13, col: 29, mentions: ['did you mean calls.orders?'] });
  });

  it('in a query template and a header template', () => {
    const errors = errorsOf(twoCalls(['        path: /lines', '        query:', '          id: "{calls.order.body.id}"', '        headers:', '          X-Id: "{calls.oders.body.id}"']));
    expect(errors.map(({ code, line, col }) => ({ code, line, col }))).toEqual([
      { code: 'CALL_NOT_DEFINED', line: 15, col: 23 },
      { code: 'CALL_NOT_DEFINED', line: 17, col: 25 },
    ]);
  });

  it('in a body written as a block: the line and column of the name', () => {
    const text = twoCalls([
      '        path: /lines', // 13
      '        body: |', // 14
      '          {', // 15
      '            "ids": calls.orders.body.id,', // 16
      '            "lines": calls.orderz.items', // 17
      '          }', // 18
    ]);
    expectOnlyError(text, { code: 'CALL_NOT_DEFINED', line: 17, col: 28, mentions: ['"orderz"'] });
  });

  it('in forEach.list and in paginate expressions', () => {
    const errors = errorsOf(twoCalls([
      '        path: /lines/{item}', // 13
      '        forEach:', // 14
      '          list: calls.ordes.body.ids', // 15
      '        paginate:', // 16
      '          style: page', // 17
      '          items: response.body.lines[orderId in $$.calls.odrers.body.ids]', // 18
    ]));
    expect(errors.map(({ code, line, col, message }) => ({ code, line, col, hint: /did you mean calls\.(\w+)/.exec(message)?.[1] }))).toEqual([
      { code: 'CALL_NOT_DEFINED', line: 15, col: 23, hint: 'orders' },
      { code: 'CALL_NOT_DEFINED', line: 18, col: 58, hint: 'orders' },
    ]);
  });

  it('in an outcome condition and message, with every call as a suggestion', () => {
    const errors = errorsOf(twoCalls([
      '        path: /lines', // 13
      '    outcomes:', // 14
      '      - when: calls.line.status = 404', // 15
      '        result: OperationFailed', // 16
      '        message: calls.ordres.body.reason', // 17
    ]));
    expect(errors.map(({ code, line, col }) => ({ code, line, col }))).toEqual([
      { code: 'CALL_NOT_DEFINED', line: 15, col: 21 },
      { code: 'CALL_NOT_DEFINED', line: 17, col: 24 },
    ]);
    expect(errors[0].message).toContain('did you mean calls.lines? (its calls: orders, lines)');
  });

  it('an operation without calls: output reading calls says it makes none', () => {
    expectOnlyError(yaml(`${HEADER}operations:`, '  GetItem:', '    output: calls.item.body'), { code: 'CALL_NOT_DEFINED', line: 7, col: 19, mentions: ['it makes no calls'] });
  });

  it('a name far from every call gets no suggestion, but is still refused', () => {
    const issue = expectOnlyError(twoCalls(['        path: /lines'], 'calls.warehouse.body'), { code: 'CALL_NOT_DEFINED', line: 14, col: 19 });
    expect(issue.message).not.toContain('did you mean');
  });

  it('$$.calls and $.calls at the root count, a quoted name too', () => {
    const errors = errorsOf(twoCalls(['        path: /lines'], '|\n      [$$.calls.ordrs, $.calls.lnes, calls.`ordres`]'));
    expect(errors.map((e) => e.message.slice(0, e.message.indexOf(':')))).toEqual(['calls.ordrs', 'calls.lnes', 'calls.ordres']);
    expect(errors.map((e) => [e.line, e.col])).toEqual([[15, 17], [15, 32], [15, 45]]);
  });
});

describe('what is not a reference to a call, and loads', () => {
  it('a field named calls inside the ERP answer, a variable, a string, a lambda at the root', () => {
    const output = [
      '|\n      {',
      '"number": "SO-1", "dueDate": "2026-01-01T00:00:00Z", "requests": [],', // what the contract requires of a work order
      '"a": calls.orders.items[calls.count > 0],', // calls is a field of each item here
      '"b": calls.orders.items.calls.whatever,',
      '"c": "calls.nothing",',
      '"d": $map(calls.orders.items, function($o) { $o.calls.x }),',
      '"e": (function($k) { calls.lines.body })(1),',
      '"f": $keys(calls)',
      '}',
    ].join(' ');
    expect(errorsOf(twoCalls(['        path: /lines/{calls.orders.body.id}'], output))).toEqual([]);
  });
});

describe('calls.<name> read before the call is made (CALL_NOT_YET_MADE)', () => {
  it('a call reading a later call', () => {
    const text = yaml(
      `${HEADER}operations:`, //  5
      '  GetWorkOrders:', //  6
      '    calls:', //  7
      '      - name: orders', //  8
      '        method: GET', //  9
      '        path: /orders/{calls.lines.body.id}', // 10
      '      - name: lines', // 11
      '        method: GET', // 12
      '        path: /lines', // 13
      '    output: calls.orders.body', // 14
    );
    expectOnlyError(text, { code: 'CALL_NOT_YET_MADE', line: 10, col: 30, mentions: ['calls.lines', '"orders"', 'only the calls above it'] });
  });

  it('a call reading its own answer in its own request', () => {
    expectOnlyError(twoCalls(['        path: /lines/{calls.lines.body.next}']), { code: 'CALL_NOT_YET_MADE', line: 13, col: 29, mentions: ['itself', 'response'] });
  });

  it('outbox.orderingKey, worked out before any call', () => {
    const text = yaml(
      `${HEADER}operations:`, //  5
      '  ReportWorkOrderStatus:', //  6
      '    calls:', //  7
      '      - name: status', //  8
      '        method: POST', //  9
      '        path: /status', // 10
      '    delivery: outbox', // 11
      '    outbox:', // 12
      '      orderingKey: calls.status.body.id', // 13
    );
    expectOnlyError(text, { code: 'CALL_NOT_YET_MADE', line: 13, col: 26, mentions: ['only input'] });
  });
});

describe('result names and misspelt settings', () => {
  it('a misspelt result name suggests the right one', () => {
    const text = yaml(
      `${HEADER}operations:`,
      '  GetItem:',
      '    calls:',
      '      - name: article',
      '        method: GET',
      '        path: /articles/{input.number}',
      '    outcomes:',
      '      - when: response.status = 404',
      '        result: ItemDoesNotExists',
      '    output: calls.article.body',
    );
    expectOnlyError(text, { code: 'UNKNOWN_RESULT', line: 13, col: 17, mentions: ['did you mean ItemDoesNotExist?'] });
  });

  it('ouput: on a data route is one unknown setting suggesting output', () => {
    const text = yaml(`${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: article', '        method: GET', '        path: /a', '    ouput: calls.article.body');
    expectOnlyError(text, { code: 'UNKNOWN_SETTING', line: 11, col: 5, mentions: ['"ouput"', 'did you mean "output"?'] });
  });

  it('a misspelt required setting (methd) is reported once, at the misspelling, not also as missing', () => {
    const text = yaml(`${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: article', '        methd: GET', '        path: /a', '    output: calls.article.body');
    expectOnlyError(text, { code: 'UNKNOWN_SETTING', line: 9, col: 9, mentions: ['"methd"', 'did you mean "method"?', 'a required setting'] });
  });

  it('the same inside a pagination style (cursorParm), naming what the style takes', () => {
    const text = yaml(
      `${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: article', '        method: GET', '        path: /a',
      '        paginate:', '          style: cursor', '          cursorParm: c', '          next: response.body.next', '          items: response.body.items',
      '    output: calls.article.items',
    );
    expectOnlyError(text, { code: 'UNKNOWN_SETTING', line: 13, col: 11, mentions: ['did you mean "cursorParam"?', 'style cursor takes:'] });
  });

  it('and for the key that picks the variant (styl: cursor)', () => {
    const text = yaml(
      `${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: article', '        method: GET', '        path: /a',
      '        paginate:', '          styl: cursor', '          cursorParam: c', '          next: response.body.next', '          items: response.body.items',
      '    output: calls.article.items',
    );
    expectOnlyError(text, { code: 'UNKNOWN_SETTING', line: 12, col: 11, mentions: ['"styl"', 'did you mean "style"?'] });
  });

  it('a setting that is missing and not misspelt is still MISSING_SETTING', () => {
    const text = yaml(`${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: article', '        path: /a', '    output: calls.article.body');
    expectOnlyError(text, { code: 'MISSING_SETTING', line: 8, col: 9, mentions: ['"method"'] });
  });
});
