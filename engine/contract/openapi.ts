import { contractComponents, inputProperty, routeSchema } from './openapi-schemas';
import { ROUTES, type RouteSpec } from './routes';

/**
 * An OpenAPI 3.1 document of the contract as one server serves it, generated from the route table and
 * the contract's schemas: one path per route and mapping, the envelope of each route with exactly its
 * result numbers, the credentials the mapping asks for, and which routes the mapping leaves unmapped.
 * For the platform team: generate a client, or check a deployment against the contract.
 */

type InboundAuthSummary = { readonly type: 'none' } | { readonly type: 'apiKey'; readonly header: string } | { readonly type: 'basic' };

export interface ServedMapping {
  readonly name: string;
  /** '' when served at the root, else '/<name>' (URL-encoded). */
  readonly prefix: string;
  /** Operation ids the mapping answers; the others are unmapped. */
  readonly mapped: ReadonlySet<string>;
  readonly inboundAuth: InboundAuthSummary;
}

type Json = Record<string, unknown>;

/** Security scheme names allow letters, digits and . - _ only; a mapping name may hold more. */
const schemeName = (mapping: ServedMapping) => `${mapping.name.replace(/[^A-Za-z0-9._-]/g, '_')}-${mapping.inboundAuth.type}`;

function envelopeOf(route: RouteSpec): Json {
  const names = Object.keys(route.results);
  const properties: Json = {
    isResultSuccess: { type: 'boolean', description: `true exactly when result is ${route.results[route.successResult]} (${route.successResult}).` },
    result: { type: 'integer', enum: names.map((name) => route.results[name]), 'x-enum-varnames': names, description: names.map((name) => `${route.results[name]} ${name}`).join(', ') },
    validationStatus: { description: 'Any value or null.' },
    externalMessage: { type: ['string', 'null'] },
  };
  const required = ['isResultSuccess', 'result', 'validationStatus', 'externalMessage'];
  if (route.kind === 'data' && route.dataSchema) {
    properties.data = { anyOf: [routeSchema(route.dataSchema), { type: 'null' }], description: 'null when there is nothing to return (failures).' };
    required.push('data');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * Path parameters (always required) and query parameters, typed and described by the properties of the
 * route's input schema; a parameter the schema does not name is a plain string.
 */
function parametersOf(route: RouteSpec): Json[] {
  const parameter = (name: string, where: 'path' | 'query'): Json => {
    const property = inputProperty(route.inputSchema, name);
    return {
      name, in: where, required: where === 'path' || (property?.required ?? false),
      ...(property?.description ? { description: property.description } : {}),
      schema: property?.schema ?? { type: 'string' },
    };
  };
  const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => parameter(match[1], 'path'));
  return route.inputSource === 'query' ? [...pathParams, ...route.params.map((name) => parameter(name, 'query'))] : pathParams;
}

/** What the engine answers on a route the mapping leaves unmapped (the dispatcher's rule). */
function unmappedAnswer(route: RouteSpec): string {
  if (route.unmappedDefault) {
    return `${route.successResult} (result ${route.results[route.successResult]}, isResultSuccess true) with ${JSON.stringify(route.unmappedDefault.data)} as data`;
  }
  return `AdapterNotDefined (result ${route.results.AdapterNotDefined}, isResultSuccess false)${route.kind === 'data' ? ' with data null' : ''}`;
}

function operationOf(route: RouteSpec, served: ServedMapping, several: boolean): Json {
  const unmapped = !served.mapped.has(route.operationId);
  const operation: Json = {
    operationId: several ? `${served.name}.${route.operationId}` : route.operationId,
    summary: route.summary,
    tags: [served.name],
    description: unmapped ? `Not mapped by "${served.name}": the engine answers ${unmappedAnswer(route)}.` : `Answered by the mapping "${served.name}".`,
    parameters: parametersOf(route),
    responses: {
      200: { description: 'The envelope; result says what happened.', content: { 'application/json': { schema: envelopeOf(route) } } },
      ...(served.inboundAuth.type === 'none' ? {} : { 401: { description: 'Credentials missing or not accepted.', content: { 'application/json': { schema: { $ref: '#/components/schemas/AuthenticationRequired' } } } } }),
    },
  };
  if (unmapped) operation['x-unmapped'] = true;
  if (route.inputSource === 'body' && route.inputSchema) operation.requestBody = { required: true, content: { 'application/json': { schema: routeSchema(route.inputSchema) } } };
  if (served.inboundAuth.type !== 'none') operation.security = [{ [schemeName(served)]: [] }];
  return operation;
}

/** `more`: paths of the engine's own beside the contract's (the studio's API). */
export function openApiDocument(served: readonly ServedMapping[], info: { readonly title: string; readonly version: string }, more: Readonly<Record<string, Json>> = {}): Json {
  const paths: Record<string, Json> = { ...more };
  const several = served.length > 1;
  for (const mapping of served) {
    for (const route of ROUTES) {
      const key = `${mapping.prefix}${route.path}`;
      paths[key] = { ...paths[key], [route.method.toLowerCase()]: operationOf(route, mapping, several) };
    }
  }
  const securitySchemes: Json = {};
  for (const mapping of served) {
    const auth = mapping.inboundAuth;
    if (auth.type === 'apiKey') securitySchemes[schemeName(mapping)] = { type: 'apiKey', in: 'header', name: auth.header };
    if (auth.type === 'basic') securitySchemes[schemeName(mapping)] = { type: 'http', scheme: 'basic' };
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    paths,
    components: {
      schemas: { ...contractComponents(), AuthenticationRequired: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } },
      ...(Object.keys(securitySchemes).length > 0 ? { securitySchemes } : {}),
    },
  };
}
