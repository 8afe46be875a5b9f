/**
 * Issue 44: a GraphQL call's document is parsed at load by the graphql package, a mistake reported at
 * its line and column inside the YAML block scalar; with graphql.schema it is validated against the
 * schema, an unknown field answered with the schema's own suggestion.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { PROJECT_ROOT } from '../../engine/paths';

const SHOPIFY_DIR = path.join(PROJECT_ROOT, 'examples', 'shopify');

function issuesOf(call: string): string[] {
  const text = `version: 1
name: graphql-load
system:
  baseUrl: http://store.test
operations:
  GetItem:
    calls:
${call.replace(/^/gm, '      ').trimEnd()}
    output: calls.variant.body.data
`;
  const result = checkMappingText(text, 'store.yaml', {}, SHOPIFY_DIR);
  return result.issues.filter((issue) => issue.severity === 'error').map((issue) => `${issue.line}:${issue.col} ${issue.code} ${issue.message}`);
}

const call = (document: string, extra = '') => `- name: variant
  method: POST
  path: /graphql.json
  graphql:
    schema: schema.graphql
    document: |-
${document.replace(/^/gm, '      ')}
${extra}`;

describe('graphql: checked at load', () => {
  it('a syntax error is reported at its line and column inside the block scalar', () => {
    expect(issuesOf(call('query VariantBySku {\n  productVariants(first: 1 {\n    nodes { id }\n  }\n}'))).toEqual([
      expect.stringMatching(/^15:40 GRAPHQL_SYNTAX GraphQL: Syntax Error: Expected Name, found "\{"\./),
    ]);
  });

  it('an unknown field against the schema: the schema\'s own "Did you mean"', () => {
    expect(issuesOf(call('query VariantBySku {\n  productVariants(first: 1) {\n    nodes { id skus }\n  }\n}'))).toEqual([
      '16:28 GRAPHQL_INVALID GraphQL: Cannot query field "skus" on type "ProductVariant". Did you mean "sku"? (checked against schema.graphql)',
    ]);
  });

  it('a schema file that is not there', () => {
    const text = call('query A { orders(first: 1) { nodes { id } } }').replace('schema.graphql', 'missing.graphql');
    expect(issuesOf(text)[0]).toMatch(/GRAPHQL_SCHEMA_UNREADABLE graphql\.schema|GRAPHQL_SCHEMA_UNREADABLE .*"missing\.graphql" cannot be read/);
  });

  it('two operations without operationName; a GET; a body beside graphql', () => {
    expect(issuesOf(call('query A { orders(first: 1) { nodes { id } } }\nquery B { orders(first: 2) { nodes { id } } }'))[0]).toContain('it has 2 operations (A, B): say which one with graphql.operationName');
    expect(issuesOf(call('query A { orders(first: 1) { nodes { id } } }').replace('method: POST', 'method: GET'))[0]).toContain('is a GraphQL call, which is sent as a POST');
    expect(issuesOf(call('query A { orders(first: 1) { nodes { id } } }', '  body: input'))[0]).toContain('has both graphql and body');
  });

  it('paginate.style connection needs the operation to declare $after', () => {
    const issues = issuesOf(call('query A { orders(first: 10) { nodes { id } pageInfo { hasNextPage endCursor } } }', '  paginate: { style: connection, connection: response.body.data.orders }'));
    expect(issues[0]).toContain('declares no $after variable for the cursor');
  });

  it('userErrors without graphql', () => {
    expect(issuesOf('- { name: variant, method: POST, path: /x, body: input, userErrors: data.x.userErrors }')[0]).toContain('userErrors reads a GraphQL answer');
  });
});
