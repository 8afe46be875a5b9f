import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../errors';
import { checkMappingText } from '../mapping/load';
import type { FlowOperation } from '../mapping/model';
import { buildRequest, joinUnderBase } from './build-request';

const base = new URL('http://erp.test:8081/api/v1');

/** `operation`: whose input the call reads (the load checks the fields it names against the route's). */
function mappingWith(call: string, operation = 'GetItem') {
  const text = `version: 1\nname: t\nsystem:\n  baseUrl: http://erp.test:8081/api/v1/\n  headers: { X-Fixed: yes }\noperations:\n  ${operation}:\n    calls:\n${call}\n    output: calls.c.body\n`;
  const { mapping, issues } = checkMappingText(text, 't.yaml', {});
  if (!mapping) throw new Error(issues.map((i) => i.message).join('\n'));
  return { system: mapping.system, call: (mapping.operations.get(operation) as FlowOperation).calls[0] };
}

describe('joinUnderBase', () => {
  it('appends the path to the base path', () => {
    expect(joinUnderBase(base, '/articles/A-1', 'c').href).toBe('http://erp.test:8081/api/v1/articles/A-1');
  });

  it.each(['/..', '/../admin', '/%2e%2e/admin', '/a/../../x', '/.'])('refuses %s, which would leave the base path', (path) => {
    expect(() => joinUnderBase(base, path, 'c')).toThrow(OperationFailure);
  });
});

describe('buildRequest', () => {
  it('URI-encodes placeholder values so they stay one path segment', async () => {
    const { system, call } = mappingWith('      - { name: c, method: GET, path: "/articles/{input.number}" }');
    const request = await buildRequest(call, system, { input: { number: '../admin?x=1#y' }, calls: {} });
    expect(request.url.href).toBe('http://erp.test:8081/api/v1/articles/..%2Fadmin%3Fx%3D1%23y');
  });

  it.each(['..', '.', ''])('refuses the path value %j as InvalidInput-class failure', async (value) => {
    const { system, call } = mappingWith('      - { name: c, method: GET, path: "/articles/{input.number}" }');
    await expect(buildRequest(call, system, { input: { number: value }, calls: {} })).rejects.toMatchObject({ kind: 'REQUEST_INVALID' });
  });

  it('fills query and headers, leaves out parameters that have no value, repeats lists', async () => {
    const { system, call } = mappingWith(
      '      - name: c\n        method: POST\n        path: /search\n        query: { q: "{input.storageId}", missing: "{input.remainingRequests}", tag: "{input.workOrdersNumbers}", fixed: "v1" }\n        headers: { X-User: "user {input.storageId}" }\n        body: \'{ "n": input.storageId }\'',
      'GetReport',
    );
    const request = await buildRequest(call, system, { input: { storageId: 'a b&c', workOrdersNumbers: ['x', 'y'] }, calls: {} });
    expect(request.url.search).toBe('?q=a%20b%26c&tag=x&tag=y&fixed=v1');
    expect(request.headers).toEqual({ 'X-Fixed': 'yes', 'X-User': 'user a b&c' });
    expect(request.body).toEqual({ n: 'a b&c' });
    expect(request.method).toBe('POST');
  });

  it('says which placeholder gave no value inside a mixed text', async () => {
    const { system, call } = mappingWith('      - { name: c, method: GET, path: "/articles/{input.number}/x" }');
    await expect(buildRequest(call, system, { input: {}, calls: {} })).rejects.toThrow(/calls\.c\.path.*\{input\.number\} gave no value/);
  });

  it('refuses header values with line breaks (header injection)', async () => {
    const { system, call } = mappingWith('      - { name: c, method: GET, path: /x, headers: { X-A: "{input.number}" } }');
    await expect(buildRequest(call, system, { input: { number: 'a\r\nX-Evil: 1' }, calls: {} })).rejects.toThrow(/line break/);
  });
});
