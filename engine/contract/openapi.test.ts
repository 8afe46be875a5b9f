import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { toEnvelope } from './envelope';
import { openApiDocument, type ServedMapping } from './openapi';
import { componentRef } from './openapi-schemas';
import { ROUTES, type RouteSpec } from './routes';

type Json = Record<string, unknown>;

const ALL = new Set(ROUTES.map((route) => route.operationId));

/** Every `$ref` of the document, with where it was found. */
function refsOf(node: unknown, at = '#', found: { ref: string; at: string }[] = []): { ref: string; at: string }[] {
  if (Array.isArray(node)) node.forEach((item, index) => refsOf(item, `${at}/${index}`, found));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push({ ref: value, at });
      else refsOf(value, `${at}/${key}`, found);
    }
  }
  return found;
}

function resolve(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref.slice(2).split('/').reduce<unknown>((node, part) => (typeof node === 'object' && node !== null ? (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
}

async function validated(served: ServedMapping[]): Promise<Json> {
  const document = openApiDocument(served, { title: 'test', version: '1.2.3' });
  const result = await new Validator().validate(document);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
  expect(result.valid).toBe(true);
  const refs = refsOf(document);
  expect(refs.some(({ ref }) => ref.includes('/definitions/'))).toBe(true); // fragments of the schema files are among them
  const unresolved = refs.filter(({ ref }) => resolve(document, ref) === undefined);
  expect(unresolved).toEqual([]);
  return document;
}

/** Operations of the document whose path starts with `prefix`, with their method and path. */
function operationsUnder(document: Json, prefix: string): { path: string; method: string; op: Json }[] {
  return Object.entries(document.paths as Json)
    .filter(([path]) => path.startsWith(`${prefix}/`))
    .flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })));
}

const operation = (document: Json, path: string, method: string) => ((document.paths as Json)[path] as Json)[method] as Json;
const envelope = (op: Json) => ((((op.responses as Json)[200] as Json).content as Json)['application/json'] as Json).schema as { properties: Json; required: string[] };
const routeNamed = (operationId: string): RouteSpec => ROUTES.find((route) => route.operationId === operationId)!;

describe('the OpenAPI document of the served contract', () => {
  it('one mapping at the root, some routes unmapped, no inbound auth: a valid OpenAPI 3.1 document', async () => {
    const mapped = new Set([...ALL].filter((id) => id !== 'GetItemImage' && id !== 'GetExportColumns'));
    const document = await validated([{ name: 'example', prefix: '', mapped, inboundAuth: { type: 'none' } }]);
    expect(document.openapi).toBe('3.1.0');
    const operations = operationsUnder(document, '');
    expect(operations).toHaveLength(ROUTES.length);
    expect(operations.map(({ op }) => op.operationId)).toEqual(ROUTES.map((route) => route.operationId));
    for (const { op } of operations) {
      expect(op.security).toBeUndefined();
      expect((op.responses as Json)[401]).toBeUndefined();
    }
    expect((document.components as Json).securitySchemes).toBeUndefined();
    const getItem = operation(document, '/Items/{number}', 'get');
    expect(getItem.operationId).toBe('GetItem');
    const route = ROUTES.find((candidate) => candidate.operationId === 'GetItem')!;
    expect((envelope(getItem).properties.result as { enum: number[] }).enum).toEqual(Object.values(route.results));
    expect(getItem['x-unmapped']).toBeUndefined();
    expect(getItem.security).toBeUndefined();
    expect(operation(document, '/Items/IntegrateImage/{number}', 'get')).toMatchObject({ 'x-unmapped': true, description: expect.stringContaining('AdapterNotDefined') });
    expect(operation(document, '/WorkOrders/WorkOrderExportColumns', 'get')).toMatchObject({ 'x-unmapped': true, description: expect.stringContaining('[]') });
    const event = ROUTES.find((candidate) => candidate.kind === 'event')!;
    const eventEnvelope = envelope(operation(document, event.path, event.method.toLowerCase()));
    expect(eventEnvelope.properties.data).toBeUndefined();
    expect(eventEnvelope.required).not.toContain('data');
    expect((eventEnvelope.properties.result as { enum: number[] }).enum).toEqual(Object.values(event.results));
    for (const route of ROUTES.filter((candidate) => candidate.kind === 'event')) {
      expect(envelope(operation(document, route.path, route.method.toLowerCase())).properties.data).toBeUndefined();
    }
    const report = routeNamed('GetReport');
    const reportResult = envelope(operation(document, report.path, 'post')).properties.result as { enum: number[]; 'x-enum-varnames': string[] };
    expect(reportResult.enum).toEqual(Object.values(report.results));
    expect(reportResult['x-enum-varnames']).toEqual(Object.keys(report.results));
  });

  it('parameters and request bodies come from the route table and the input schemas', () => {
    const document = openApiDocument([{ name: 'example', prefix: '', mapped: ALL, inboundAuth: { type: 'none' } }], { title: 'test', version: '1' });
    expect(operation(document, '/WorkOrders/Code', 'get').parameters).toEqual([
      expect.objectContaining({ name: 'Code', in: 'query', required: false }),
      expect.objectContaining({ name: 'StorageName', in: 'query', required: false }),
    ]);
    expect(operation(document, '/Items/{number}', 'get').parameters).toEqual([
      expect.objectContaining({ name: 'number', in: 'path', required: true, schema: expect.objectContaining({ type: 'string', minLength: 1 }) }),
    ]);
    expect(operation(document, '/WorkOrders/File', 'post').requestBody).toEqual({
      required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/file-request' } } },
    });
    expect(operation(document, '/WorkOrders', 'get').requestBody).toBeUndefined();
  });

  it('what the engine answers (toEnvelope) validates against the document, on every route', () => {
    const document = openApiDocument([{ name: 'example', prefix: '', mapped: new Set(), inboundAuth: { type: 'none' } }], { title: 'test', version: '1' });
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const route of ROUTES) {
      const schema = envelope(operation(document, route.path, route.method.toLowerCase()));
      const check = ajv.compile({ ...schema, components: document.components });
      const unmapped = route.unmappedDefault ? { resultName: route.successResult, data: route.unmappedDefault.data } : { resultName: 'AdapterNotDefined' };
      expect(check(toEnvelope(route, unmapped)), `${route.operationId}: ${JSON.stringify(check.errors)}`).toBe(true);
      expect(check(toEnvelope(route, { resultName: 'OperationFailed', externalMessage: 'down' })), route.operationId).toBe(true);
      expect(check({ ...toEnvelope(route, { resultName: 'OperationFailed' }), result: 99 }), route.operationId).toBe(false);
      if (route.operationId === 'GetItem') { // the refs into the components are followed: data is checked against item.schema.json
        expect(check(toEnvelope(route, { resultName: 'Succeed', data: { number: 'A-1' } })), JSON.stringify(check.errors)).toBe(true);
        expect(check(toEnvelope(route, { resultName: 'Succeed', data: { number: 5 } }))).toBe(false);
      }
      if (route.kind === 'event') expect(check({ ...toEnvelope(route, { resultName: route.successResult }), data: null }), route.operationId).toBe(false);
    }
  });

  it('rewrites contract refs, with and without fragments, to components', () => {
    expect(componentRef('https://adapter-engine.dev/schemas/contract/item.schema.json', '')).toBe('#/components/schemas/item');
    expect(componentRef('enums.schema.json#/definitions/unitOfMeasure', 'item.schema.json')).toBe('#/components/schemas/enums/definitions/unitOfMeasure');
    expect(componentRef('#/definitions/itemRequest', 'update-work-order-request.schema.json')).toBe('#/components/schemas/update-work-order-request/definitions/itemRequest');
    expect(componentRef('https://adapter-engine.dev/schemas/contract/enums.schema.json#/$defs/x', '')).toBe('#/components/schemas/enums/$defs/x');
  });

  it('two mappings under their prefixes, one with an API key and one with Basic: security per mapping', async () => {
    const document = await validated([
      { name: 'a', prefix: '/a', mapped: ALL, inboundAuth: { type: 'apiKey', header: 'X-Api-Key' } },
      { name: 'b', prefix: '/b', mapped: ALL, inboundAuth: { type: 'basic' } },
    ]);
    for (const [prefix, scheme] of [['/a', 'a-apiKey'], ['/b', 'b-basic']]) {
      const operations = operationsUnder(document, prefix);
      expect(operations).toHaveLength(ROUTES.length);
      expect(operations.map(({ path, method }) => `${method.toUpperCase()} ${path}`)).toEqual(ROUTES.map((route) => `${route.method} ${prefix}${route.path}`));
      for (const { op } of operations) {
        expect(op.security).toEqual([{ [scheme]: [] }]);
        expect(((op.responses as Json)[401] as Json).content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/AuthenticationRequired' } } });
        expect(op['x-unmapped']).toBeUndefined();
      }
    }
    const ids = Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
    expect(new Set(ids).size).toBe(2 * ROUTES.length);
    const a = operation(document, '/a/Items/{number}', 'get');
    expect(a).toMatchObject({ operationId: 'a.GetItem', security: [{ 'a-apiKey': [] }] });
    expect((a.responses as Json)[401]).toBeDefined();
    expect(operation(document, '/b/Items/{number}', 'get')).toMatchObject({ operationId: 'b.GetItem', security: [{ 'b-basic': [] }] });
    expect((document.components as Json).securitySchemes).toEqual({ 'a-apiKey': { type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'b-basic': { type: 'http', scheme: 'basic' } });
  });

  it('a mapping without inbound auth next to one with it: security and 401 only on the latter', async () => {
    const document = await validated([
      { name: 'open', prefix: '/open', mapped: new Set(['GetItem']), inboundAuth: { type: 'none' } },
      { name: 'k e y', prefix: '/k%20e%20y', mapped: ALL, inboundAuth: { type: 'apiKey', header: 'X-Key' } },
    ]);
    for (const { op } of operationsUnder(document, '/open')) {
      expect(op.security).toBeUndefined();
      expect((op.responses as Json)[401]).toBeUndefined();
    }
    expect(operation(document, '/open/WorkOrders', 'get')).toMatchObject({ 'x-unmapped': true, operationId: 'open.GetWorkOrders' });
    expect(operation(document, '/open/Items/{number}', 'get')['x-unmapped']).toBeUndefined();
    const keyed = operationsUnder(document, '/k%20e%20y');
    expect(keyed).toHaveLength(ROUTES.length);
    for (const { op } of keyed) expect(op.security).toEqual([{ 'k_e_y-apiKey': [] }]);
    expect((document.components as Json).securitySchemes).toEqual({ 'k_e_y-apiKey': { type: 'apiKey', in: 'header', name: 'X-Key' } });
  });
});
