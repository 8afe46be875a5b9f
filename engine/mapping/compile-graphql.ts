import fs from 'node:fs';
import path from 'node:path';
import { buildClientSchema, buildSchema, getOperationAST, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import type { CompileHelpers } from './compile-connectivity';
import type { CallDocument } from './format/mapping';
import type { GraphqlSpec } from './model';
import type { PathSegment } from './yaml-source';

/**
 * A call's graphql: block. The document is parsed at load by the graphql package (the reference
 * implementation, not a parser of our own), so a mistake is reported at its line and column inside the
 * YAML; with a schema it is validated too, with the package's own messages ("Did you mean ...?").
 */

/** Schemas read once per mapping load, by the file's path: several calls name the same one. */
export type SchemaCache = Map<string, GraphQLSchema | false>;

/** `operations.GetItem.calls[0]`, as messages name places. */
function named(where: readonly PathSegment[]): string {
  return where.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

/** The offset in the document text of a GraphQL error's first location (line and column from 1). */
function offsetOf(text: string, error: GraphQLError): number {
  const location = error.locations?.[0];
  if (!location) return 0;
  const lines = text.split('\n');
  return lines.slice(0, location.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + location.column - 1;
}

function readSchema(h: CompileHelpers, file: string, where: readonly PathSegment[], cache: SchemaCache): GraphQLSchema | false {
  const full = path.resolve(h.baseDir, file);
  const known = cache.get(full);
  if (known !== undefined) return known;
  let schema: GraphQLSchema | false;
  try {
    const text = fs.readFileSync(full, 'utf8');
    if (/\.json$/i.test(file)) {
      const json = JSON.parse(text) as { data?: IntrospectionQuery } & IntrospectionQuery;
      schema = buildClientSchema(json.data ?? json);
    } else {
      schema = buildSchema(text);
    }
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    h.report('GRAPHQL_SCHEMA_UNREADABLE', where, `${named(where)} "${file}" cannot be read as a GraphQL schema (introspection JSON or SDL): ${why}; paths are relative to the mapping file`);
    schema = false;
  }
  cache.set(full, schema);
  return schema;
}

export function compileGraphql(h: CompileHelpers, raw: CallDocument, where: readonly PathSegment[], schemas: SchemaCache): GraphqlSpec | undefined | false {
  const spec = raw.graphql;
  if (!spec) {
    if (raw.userErrors === undefined) return undefined;
    h.report('SETTINGS_DISAGREE', [...where, 'userErrors'], `${named(where)}.userErrors reads a GraphQL answer's business refusals; the call has no graphql: block`);
    return false;
  }
  const at = [...where, 'graphql'];
  const clash = raw.body !== undefined ? 'body' : raw.bodyXml !== undefined ? 'bodyXml' : raw.soap !== undefined ? 'soap' : undefined;
  if (clash) {
    h.report('SETTINGS_DISAGREE', [...where, clash], `${named(where)} has both graphql and ${clash}; a GraphQL call's body is {query, variables, operationName}, made from graphql: (put the values under graphql.variables)`);
    return false;
  }
  if (raw.method !== 'POST') {
    h.report('SETTINGS_DISAGREE', [...where, 'method'], `${named(where)} is a GraphQL call, which is sent as a POST; write method: POST`);
    return false;
  }
  const documentAt = [...at, 'document'];
  let document: DocumentNode;
  try {
    document = parse(spec.document);
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    h.report('GRAPHQL_SYNTAX', documentAt, `GraphQL: ${error.message}`, h.source.insideString(documentAt, offsetOf(spec.document, error)));
    return false;
  }
  const operation = getOperationAST(document, spec.operationName);
  if (!operation) {
    const names = document.definitions.flatMap((definition) => (definition.kind === 'OperationDefinition' && definition.name ? [definition.name.value] : []));
    const why = spec.operationName === undefined ? `it has ${names.length} operations (${names.join(', ')}): say which one with graphql.operationName` : `it has no operation named "${spec.operationName}"${names.length ? ` (it has ${names.join(', ')})` : ''}`;
    h.report('GRAPHQL_SYNTAX', spec.operationName === undefined ? documentAt : [...at, 'operationName'], `${named(at)}.document cannot be sent: ${why}`);
    return false;
  }
  if (spec.schema !== undefined) {
    const schema = readSchema(h, spec.schema, [...at, 'schema'], schemas);
    if (schema === false) return false;
    const problems = validate(schema, document);
    for (const problem of problems) h.report('GRAPHQL_INVALID', documentAt, `GraphQL: ${problem.message} (checked against ${spec.schema})`, h.source.insideString(documentAt, offsetOf(spec.document, problem)));
    if (problems.length > 0) return false;
  }
  const variables = spec.variables === undefined ? undefined : h.expression(spec.variables, [...at, 'variables']);
  const userErrors = raw.userErrors === undefined ? undefined : h.expression(raw.userErrors, [...where, 'userErrors']);
  if ((spec.variables !== undefined && !variables) || (raw.userErrors !== undefined && !userErrors)) return false;
  return {
    document: spec.document,
    // The operation's own name is sent when the mapping names none: the system's logs (and rateLimit.cost) read it.
    operationName: spec.operationName ?? operation.name?.value,
    operation: operation.operation as GraphqlSpec['operation'],
    declares: (operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value),
    variables,
    userErrors,
  };
}
