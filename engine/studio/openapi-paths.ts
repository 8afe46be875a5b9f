import { ENDPOINTS } from './endpoints';

/**
 * The studio's API as OpenAPI paths, from the endpoint table itself: /openapi.json lists them beside the
 * contract. They are answered on serve's admin port (read, and settle with --studio-write) and by
 * `adapter-engine studio` (all).
 */
type Json = Record<string, unknown>;

const JSON_ANSWER = { description: 'JSON', content: { 'application/json': { schema: { type: 'object' } } } };
const REFUSED = { description: '{ "error": "why" }: unknown thing (404), not allowed here or without the session token and origin (403)', content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } } } };
const TOKEN = { name: 'x-studio-token', in: 'header', required: true, description: 'The session token of the studio\'s page (its meta studio-token); with the page\'s Origin', schema: { type: 'string' } };

export function studioOpenApiPaths(): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const endpoint of ENDPOINTS) {
    const key = `/studio/api${endpoint.path}`;
    const parameters = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((found) => ({ name: found[1], in: 'path', required: true, schema: { type: 'string' } }));
    const changes = endpoint.method !== 'GET';
    paths[key] = {
      ...paths[key],
      [endpoint.method.toLowerCase()]: {
        tags: ['studio'],
        summary: endpoint.summary,
        'x-studio-access': endpoint.kind,
        ...(changes || parameters.length > 0 ? { parameters: [...parameters, ...(changes ? [TOKEN] : [])] } : {}),
        ...(changes ? { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } } : {}),
        responses: { 200: JSON_ANSWER, '4XX': REFUSED },
      },
    };
  }
  paths['/studio/api/session'] = {
    get: { tags: ['studio'], summary: 'The session token requests that change something carry (x-studio-token); on serve\'s admin port only here, behind the admin token', 'x-studio-access': 'read', responses: { 200: JSON_ANSWER } },
  };
  paths['/studio/api/events'] = {
    get: { tags: ['studio'], summary: 'New journal entries as server-sent events (event: request, data: the summary)', 'x-studio-access': 'read', responses: { 200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } } },
  };
  return paths;
}
