import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openApiDocument, type ServedMapping } from './openapi';
import { ROUTES } from './routes';

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
  const unresolved = refsOf(document).filter(({ ref }) => resolve(document, ref) === undefined);
  expect(unresolved).toEqual([]);
  return document;
}

const operation = (document: Json, path: string, method: string) => ((document.paths as Json)[path] as Json)[method] as Json;
const envelope = (op: Json) => ((((op.responses as Json)[200] as Json).content as Json)['application/json'] as Json).schema as { properties: Json; required: string[] };

describe('the OpenAPI document of the served contract', () => {
  it('one mapping at the root, some routes unmapped, no inbound auth: a valid OpenAPI 3.1 document', async () => {
    const mapped = new Set([...ALL].filter((id) => id !== 'GetItemImage' && id !== 'GetExportColumns'));
    const document = await validated([{ name: 'example', prefix: '', mapped, inboundAuth: { type: 'none' } }]);
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json));
    expect(operations).toHaveLength(ROUTES.length);
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
  });

  it('two mappings under their prefixes, one with an API key and one with Basic: security per mapping', async () => {
    const document = await validated([
      { name: 'a', prefix: '/a', mapped: ALL, inboundAuth: { type: 'apiKey', header: 'X-Api-Key' } },
      { name: 'b', prefix: '/b', mapped: ALL, inboundAuth: { type: 'basic' } },
    ]);
    const paths = Object.keys(document.paths as Json);
    expect(paths.filter((path) => path.startsWith('/a/'))).toHaveLength(new Set(ROUTES.map((route) => route.path)).size);
    expect(paths.filter((path) => path.startsWith('/b/'))).toHaveLength(new Set(ROUTES.map((route) => route.path)).size);
    const a = operation(document, '/a/Items/{number}', 'get');
    expect(a).toMatchObject({ operationId: 'a.GetItem', security: [{ 'a-apiKey': [] }] });
    expect((a.responses as Json)[401]).toBeDefined();
    expect(operation(document, '/b/Items/{number}', 'get')).toMatchObject({ operationId: 'b.GetItem', security: [{ 'b-basic': [] }] });
    expect((document.components as Json).securitySchemes).toEqual({ 'a-apiKey': { type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'b-basic': { type: 'http', scheme: 'basic' } });
  });
});
