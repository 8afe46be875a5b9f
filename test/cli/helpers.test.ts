import { describe, expect, it } from 'vitest';
import { createMasker, declaredSecretNames, secretEnvValues } from '../../engine/mapping/mask';
import { mappingFromText } from '../support/engine';
import { partialMatch } from '../../engine/testing/partial-match';
import { resolveOperation } from '../../engine/testing/resolve-operation';

describe('resolveOperation', () => {
  it.each([
    ['GetWorkOrderByCode', 'GetWorkOrderByCode', undefined],
    ['getitem', 'GetItem', undefined],
    ['GET /WorkOrders/Code', 'GetWorkOrderByCode', undefined],
    ['GET /Items/{number}', 'GetItem', undefined],
    ['GET /Items/A-100', 'GetItem', { number: 'A-100' }],
    ['GET /Items/IntegrateImage/A%2F1', 'GetItemImage', { number: 'A/1' }],
    ['GET /workorders/code?code=SO-1&StorageName=WH', 'GetWorkOrderByCode', { Code: 'SO-1', StorageName: 'WH' }],
    ['/WorkOrders/ForPutWall', 'ConfirmPutWallPlacement', undefined],
    ['GET /WorkOrders/ForPutWall/PW-01', 'GetWorkOrdersForPutWall', { code: 'PW-01' }],
  ])('%s → %s', (argument, operation, input) => {
    const resolved = resolveOperation(argument);
    expect(resolved?.route.operationId).toBe(operation);
    expect(resolved?.input).toEqual(input);
  });

  it.each(['GetWorkOrder', 'DELETE /Items/A-1', 'GET /WorkOrders/ForPutWall', 'GET /Nowhere'])('%s names nothing', (argument) => {
    expect(resolveOperation(argument)).toBeUndefined();
  });
});

describe('partialMatch', () => {
  it('compares only the fields the expectation names', () => {
    expect(partialMatch({ a: 1 }, { a: 1, b: 2 }, 'data')).toEqual([]);
    expect(partialMatch({ a: { b: 1 } }, { a: { b: 2 } }, 'data')).toEqual([{ path: 'data.a.b', expected: 1, actual: 2 }]);
  });

  it('needs lists of the same length, and a named field to be present', () => {
    expect(partialMatch([], [1], 'data')[0].note).toBe('expected 0 element(s), got 1');
    expect(partialMatch({ x: null }, {}, 'data')).toEqual([{ path: 'data.x', expected: null, actual: undefined, note: 'missing' }]);
    expect(partialMatch({ 'A-100': 2 }, { 'A-100': 3 }, 'data')[0].path).toBe('data["A-100"]');
  });
});

describe('createMasker', () => {
  it('masks declared credentials and secret variables by value, the API key and credential headers by name, and leaves $skiptoken readable', () => {
    const text = `version: 1
name: m
system:
  baseUrl: \${ERP_URL}
  headers: { X-Tenant: "\${ERP_TENANT_KEY}", X-Plant: "\${PLANT}" }
  auth: { type: apiKey, in: query, name: api_key, value: "\${ERP_API_KEY}" }
operations:
  GetExternalIndexableValueLabel: { static: { label: x } }
`;
    const env = { ERP_URL: 'http://erp', ERP_API_KEY: 'k-123456', ERP_TENANT_KEY: 't-999999', PLANT: 'Berlin' };
    const mapping = mappingFromText(text, env);
    const mask = createMasker(mapping.secretValues, declaredSecretNames(mapping.system));
    expect(mask.headers({ Authorization: 'Basic abc', Cookie: 'SAP_SESSIONID=1', 'X-Tenant': 't-999999', Accept: 'json' })).toEqual({ Authorization: '***', Cookie: '***', 'X-Tenant': '***', Accept: 'json' });
    expect(mask.url(new URL("http://erp/x?$skiptoken=20&$filter=a%20eq%20'b'&api_key=zz&plant=Berlin&id=k-123456"))).toBe('http://erp/x?$skiptoken=20&$filter=a%20eq%20%27b%27&api_key=***&plant=Berlin&id=***');
    expect(mask.deep({ note: 'key k-123456 used', key: 'customerName', token: 'next-page' })).toEqual({ note: 'key *** used', key: 'customerName', token: 'next-page' });
  });

  it('masks the CSRF token header a mapping declares', () => {
    const mapping = mappingFromText('version: 1\nname: m\nsystem:\n  baseUrl: http://erp\n  cookies: session\n  csrf: {}\noperations:\n  GetExternalIndexableValueLabel: { static: { label: x } }\n');
    expect(createMasker(mapping.secretValues, declaredSecretNames(mapping.system)).headers({ 'x-csrf-token': 'abc', 'x-next-token': 'page-2' })).toEqual({ 'x-csrf-token': '***', 'x-next-token': 'page-2' });
  });

  it('masks credential headers and secret variable values everywhere', () => {
    const text = 'baseUrl: ${ERP_URL}\nheaders: { X-Tenant: "${ERP_API_KEY}" }\nname: ${PLANT}\n';
    const mask = createMasker(secretEnvValues(text, { ERP_URL: 'http://erp', ERP_API_KEY: 'k-123456', PLANT: 'Berlin' }));
    expect(mask.headers({ Authorization: 'Basic abc', 'X-Tenant': 'k-123456', Accept: 'json' })).toEqual({ Authorization: '***', 'X-Tenant': '***', Accept: 'json' });
    expect(mask.url(new URL('http://erp/x?token=t1&plant=Berlin&id=k-123456'))).toBe('http://erp/x?token=t1&plant=Berlin&id=***'); // a name alone says nothing
    expect(mask.deep({ note: 'key k-123456 used', key: 'customerName' })).toEqual({ note: 'key *** used', key: 'customerName' });
  });

  it('masks secret values inside the strings of JSON text, escaped as JSON writes them, and nowhere else', () => {
    const mask = createMasker(secretEnvValues('${ERP_TOKEN} ${PIN_SECRET}', { ERP_TOKEN: 'a"b\\c-tok', PIN_SECRET: '12345678' }));
    const text = JSON.stringify({ note: 'sent a"b\\c-tok and 12345678', quantity: 12345678 });
    expect(JSON.parse(mask.json(text))).toEqual({ note: 'sent *** and ***', quantity: 12345678 });
    expect(mask.json('{"plain":1}')).toBe('{"plain":1}');
  });
});
