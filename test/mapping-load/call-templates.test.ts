/**
 * Call templates (system.calls.<name>, use: <name>): what a call takes from its template, and where a
 * problem in a template is reported: at the template's line, naming the calls that use it.
 */
import { describe, expect, it } from 'vitest';
import type { CallSpec, Operation } from '../../engine/mapping/model';
import { checkMappingText } from '../../engine/mapping/load';
import { errorsOf, expectOnlyError, FILE, yaml } from '../support/mapping-issues';

const SYSTEM = [
  'version: 1',
  'name: test',
  'system:',
  '  baseUrl: http://erp.local/api',
  '  refusal:',
  '    when: $exists(response.body.error)',
  '  calls:',
  '    rpc:',
  '      method: POST',
  '      path: /jsonrpc',
  '      headers:',
  '        Accept: application/json',
  '        X-Model: "{input.number}"',
  '      query:',
  '        db: main',
  '      retry:',
  '        attempts: 3',
  '        idempotent: true',
  '      body: \'{"jsonrpc": "2.0", "params": input}\'',
  '      refusal:',
  '        when: response.body.success = false',
  '        message: response.body.message',
]; // 22 lines: operations start on line 23

function loaded(text: string) {
  const result = checkMappingText(text, FILE, {});
  expect(result.issues.filter((issue) => issue.severity === 'error'), JSON.stringify(result.issues)).toEqual([]);
  return result.mapping!;
}

function callsOf(operation: Operation | undefined): readonly CallSpec[] {
  if (operation?.mode !== 'flow') throw new Error('not a flow');
  return operation.calls;
}

describe('a call that uses a template', () => {
  it('takes every setting it lacks; headers and query merge name by name, the call winning; other settings come whole', () => {
    const mapping = loaded(yaml(...SYSTEM,
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - name: item',
      '        use: rpc',
      '        headers:',
      '          X-Model: product',
      '          X-Extra: "1"',
      '        retry:',
      '          baseDelayMs: 50',
      '      - name: plain',
      '        method: GET',
      '        path: /items',
      '      - name: again',
      '        use: rpc',
      '    output: calls.item.body'));
    const [item, plain, again] = callsOf(mapping.operations.get('GetItem'));
    expect(item.method).toBe('POST');
    expect(item.path.source).toBe('/jsonrpc');
    expect(Object.fromEntries(item.headers.map(([name, template]) => [name, template.source]))).toEqual({ Accept: 'application/json', 'X-Model': 'product', 'X-Extra': '1' });
    expect(item.query.map(([name, template]) => [name, template.source])).toEqual([['db', 'main']]);
    // The call's retry replaces the template's whole: neither attempts nor idempotent is taken, so the POST is sent once.
    expect(item.retry).toMatchObject({ attempts: 1, baseDelayMs: 50 });
    expect(again.retry.attempts).toBe(3);
    expect(item.body?.source).toBe('{"jsonrpc": "2.0", "params": input}');
    // The template's refusal rule, not the system's: the call carries the rule that judges it.
    expect(item.refusal?.when.source).toBe('response.body.success = false');
    expect(item.refusal?.when.origin).toMatchObject({ line: 21 });
    expect(plain.refusal?.when.source).toBe('$exists(response.body.error)');
  });

  it("a call's own refusal wins over its template's, and the template's over the system's", () => {
    const mapping = loaded(yaml(...SYSTEM,
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - name: item',
      '        use: rpc',
      '        refusal:',
      "          when: 'false'",
      '    output: calls.item.body'));
    expect(callsOf(mapping.operations.get('GetItem'))[0].refusal?.when.source).toBe('false');
  });

  it('a call with bodyXml takes no body from its template', () => {
    const mapping = loaded(yaml(...SYSTEM,
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - name: item',
      '        use: rpc',
      '        requestType: xml',
      '        bodyXml: <get>{input.number}</get>',
      '    output: calls.item.body'));
    const [item] = callsOf(mapping.operations.get('GetItem'));
    expect(item.body).toBeUndefined();
    expect(item.bodyXml).toBeDefined();
  });

  it('takes soap, responseType and lists from a template (a SOAP service whose calls differ by action and body)', () => {
    const mapping = loaded(yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/ws',
      '  xml:',
      '    namespaces: { so: "urn:microsoft-dynamics-schemas/page/salesorder" }',
      '  calls:',
      '    page:',
      '      method: POST',
      '      path: /Page/SalesOrder',
      '      soap: { version: "1.1" }',
      '      lists: [SalesLine]',
      'operations:',
      '  GetWorkOrderByCode:',
      '    calls:',
      '      - name: order',
      '        use: page',
      '        soap: { version: "1.1", action: "urn:microsoft-dynamics-schemas/page/salesorder:Read" }',
      '        body: \'{ "so:Read": { "so:No": input.Code } }\'',
      '    output: \'{ "number": calls.order.result.SalesOrder.No, "dueDate": "2026-01-01T00:00:00Z", "requests": [] }\''));
    const [order] = callsOf(mapping.operations.get('GetWorkOrderByCode'));
    expect(order.soap).toMatchObject({ version: '1.1', action: { source: 'urn:microsoft-dynamics-schemas/page/salesorder:Read' } });
    expect(order.responseType).toBe('xml');
    expect(order.lists).toEqual(['SalesLine']);
    expect(order.path.source).toBe('/Page/SalesOrder');
  });

  it('system.session.login may use a template too', () => {
    const mapping = loaded(yaml(...SYSTEM.slice(0, 6),
      '  session:',
      '    login:',
      '      name: login',
      '      use: rpc',
      '    value: response.body.result',
      ...SYSTEM.slice(6),
      'operations: {}'));
    expect(mapping.system.session?.login.method).toBe('POST');
  });
});

describe('a problem that comes from a template', () => {
  it('is reported at the template field, once, naming every call that uses it', () => {
    const text = yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api',
      '  calls:',
      '    rpc:',
      '      method: POST',
      '      path: /jsonrpc',
      '      headers:',
      '        X-Model: "{$uppercas(input.number)}"',
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - { name: one, use: rpc }',
      '      - { name: two, use: rpc }',
      '    output: calls.two.body');
    const issue = expectOnlyError(text, { code: 'FUNCTION_UNKNOWN', line: 10, col: 20, mentions: ['$uppercas', 'did you mean $uppercase?'] });
    expect(issue.path).toBe('system.calls.rpc.headers.X-Model');
    expect(issue.message).toContain('(in system.calls.rpc, used by operations.GetItem.calls[0], operations.GetItem.calls[1])');
  });

  it('that depends on the call (a call read before it is made) names the call that reads it', () => {
    const text = yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api',
      '  calls:',
      '    lines:',
      '      method: GET',
      '      path: /orders/{calls.order.body.id}/lines',
      'operations:',
      '  GetWorkOrderByCode:',
      '    calls:',
      '      - { name: early, use: lines }',
      '      - { name: order, method: GET, path: /orders }',
      '      - { name: late, use: lines }',
      '    output: calls.late.body');
    const issue = expectOnlyError(text, { code: 'CALL_NOT_YET_MADE', line: 8, col: 28 });
    expect(issue.message).toContain('used by operations.GetWorkOrderByCode.calls[0])');
    expect(issue.message).not.toContain('calls[2]');
  });

  it("in the template's structure is reported once, at the template, not again for each call", () => {
    const text = yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api',
      '  calls:',
      '    rpc:',
      '      method: POST',
      '      path: /jsonrpc',
      '      retry:',
      '        attempts: 50',
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - { name: one, use: rpc }',
      '      - { name: two, use: rpc }',
      '    output: calls.two.body');
    const issue = expectOnlyError(text, { code: 'VALUE_NOT_ALLOWED', line: 10, col: 19 });
    expect(issue.path).toBe('system.calls.rpc.retry.attempts');
  });

  it('a method that neither the call nor its template gives is missing at the call, saying so', () => {
    const text = yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api',
      '  calls:',
      '    auth:',
      '      headers:',
      '        X-Key: abc',
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - name: one',
      '        use: auth',
      '        path: /items',
      '    output: calls.one.body');
    const issue = expectOnlyError(text, { code: 'MISSING_SETTING', line: 12, col: 9, mentions: ['"method"', 'system.calls.auth (its use) does not give it either'] });
    expect(issue.path).toBe('operations.GetItem.calls[0]');
  });
});

describe('use: that cannot be followed', () => {
  it('an unknown template name is an error with "did you mean", and nothing else is said about that call', () => {
    const text = yaml(...SYSTEM,
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - name: item',
      '        use: rcp',
      '    output: calls.item.body');
    expectOnlyError(text, { code: 'USE_UNKNOWN', line: 27, col: 14, mentions: ['"rcp"', 'did you mean "rpc"?', 'templates: rpc'] });
  });

  it('a template named like a property of every object is no template', () => {
    const text = yaml(...SYSTEM, 'operations:', '  GetItem:', '    calls:', '      - { name: item, use: constructor }', '    output: calls.item.body');
    expectOnlyError(text, { code: 'USE_UNKNOWN', line: 26, col: 28, mentions: ['"constructor"'] });
  });

  it("on a push's call (to the platform) it is refused", () => {
    const text = yaml(...SYSTEM,
      'operations: {}',
      'platform:',
      '  baseUrl: http://platform.local',
      'push:',
      '  orders:',
      '    auth: { type: apiKey, name: X-Key, keys: ["${PUSH_KEY}"] }',
      '    idempotencyKey: input.id',
      '    schema: { type: object }',
      '    calls:',
      '      - { name: deliver, use: rpc }');
    const errors = errorsOf(text, { PUSH_KEY: 'k' }).filter((issue) => issue.code !== 'SECRET_INLINE');
    expect(errors.map(({ code, line }) => ({ code, line }))).toContainEqual({ code: 'USE_NOT_HERE', line: 32 });
    expect(errors.filter((issue) => issue.code === 'MISSING_SETTING')).toEqual([]);
  });

  it('a template no call uses is a warning at the template', () => {
    const result = checkMappingText(yaml(...SYSTEM, 'operations: {}'), FILE, {});
    expect(result.mapping).toBeDefined();
    expect(result.issues.find((issue) => issue.code === 'TEMPLATE_UNUSED')).toMatchObject({ severity: 'warning', line: 8, col: 5, path: 'system.calls.rpc' });
  });
});

describe('YAML merge keys', () => {
  it('<<: *anchor takes an anchored block\'s settings, the block\'s own keys winning, and a problem in them is at the anchor', () => {
    const good = loaded(yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api',
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - &rpc',
      '        name: first',
      '        method: POST',
      '        path: /jsonrpc',
      '      - <<: *rpc',
      '        name: second',
      '    output: calls.second.body'));
    expect(callsOf(good.operations.get('GetItem')).map((call) => [call.name, call.method, call.path.source])).toEqual([['first', 'POST', '/jsonrpc'], ['second', 'POST', '/jsonrpc']]);
    const text = yaml(
      'version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api',
      'operations:',
      '  GetItem:',
      '    calls:',
      '      - &rpc',
      '        name: first',
      '        method: POST',
      '        path: /items/{$uppercas(input.number)}',
      '      - <<: *rpc',
      '        name: second',
      '    output: calls.second.body');
    const errors = errorsOf(text);
    expect(errors.map(({ code, line, col }) => ({ code, line, col }))).toEqual([{ code: 'FUNCTION_UNKNOWN', line: 11, col: 23 }, { code: 'FUNCTION_UNKNOWN', line: 11, col: 23 }]);
  });
});
