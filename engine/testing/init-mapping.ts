import { ROUTES, type JsonSchema, type RouteSpec } from '../contract/routes';
import { minimalExample } from '../contract/schema-examples';

/**
 * What `adapter-engine init` writes, derived from the contract table (engine/contract/routes.ts) so it
 * follows the contract when the table changes: every route as an operation that forwards the
 * platform's request to the same path on the ERP, commented with what the platform sends, what the
 * route must answer and the result names it may use; and a first test case per route.
 */

/** The one call each generated operation makes; the tests give its answers under this name. */
const CALL = 'erp';

const SCHEMA_BASE = 'https://adapter-engine.dev/schemas/contract/';

/** A contract schema as a reader finds it: the file under schemas/contract/, a list of, or null. */
function describeSchema(schema: JsonSchema): string {
  if (typeof schema.$ref === 'string') return `schemas/contract/${schema.$ref.replace(SCHEMA_BASE, '')}`;
  if (schema.type === 'array' && schema.items) return `a list, each as ${describeSchema(schema.items as JsonSchema)}`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map((branch) => (branch.type === 'null' ? 'null' : describeSchema(branch))).join(' or ');
  if (schema.format === 'image-base64') return 'Base64 text of the image bytes';
  return JSON.stringify(schema);
}

function sends(route: RouteSpec): string {
  switch (route.inputSource) {
    case 'none': return 'nothing (no parameters, no body)';
    case 'query': return `query parameters ${route.params.map((name) => `${name} (input.${name})`).join(', ')}`;
    case 'path': return `path parameter ${route.params.map((name) => `${name} (input.${name})`).join(', ')}`;
    case 'body': return `a JSON body (input) as ${describeSchema(route.inputSchema as JsonSchema)}`;
  }
}

function answers(route: RouteSpec): string[] {
  if (route.kind === 'event') return [`no data: ${route.successResult} when the ERP took the event, or a failure result`];
  const lines = [`data as ${describeSchema(route.dataSchema as JsonSchema)} with ${route.successResult}`];
  if (route.unmappedDefault) lines.push(`(left unmapped it answers ${route.successResult} with ${JSON.stringify(route.unmappedDefault.data)}, contract rule 5)`);
  return lines;
}

function operation(route: RouteSpec): string {
  const results = Object.keys(route.results);
  // A route with a "does not exist" result gets a commented rule for the ERP's usual way to say so.
  const notFound = results.find((name) => name.endsWith('DoesNotExist'));
  const path = route.path.replace(/\{(\w+)\}/g, '{input.$1}');
  const lines = [
    `  # ${'─'.repeat(3)} ${route.method} ${route.path}: ${route.summary}`,
    `  # The platform sends: ${sends(route)}.`,
    ...answers(route).map((text, index) => `  # ${index === 0 ? 'It must answer: ' : '  '}${text}.`),
    `  # Results it may use, by name: ${results.join(', ')}.`,
    `  ${route.operationId}:`,
    '    calls:',
    `      - name: ${CALL}`,
    `        method: ${route.method}`,
    `        path: ${JSON.stringify(path)}   # the ERP's endpoint for this; the platform's own path until you change it`,
  ];
  if (route.inputSource === 'query') {
    lines.push(`        query: { ${route.params.map((name) => `${name}: "{input.${name}}"`).join(', ')} }`);
  }
  if (route.inputSource === 'body') lines.push('        body: input   # JSONata: what the ERP gets; here the platform\'s body as it came');
  if (notFound) {
    lines.push(
      '    # outcomes:                  # the first rule whose `when` holds decides the result',
      `    #   - when: response.status = 404`,
      `    #     result: ${notFound}`,
      `    #     message: "'Not known in the ERP'"`,
    );
  }
  if (route.kind === 'data') lines.push(`    output: calls.${CALL}.body   # JSONata: build the contract's data from the ERP's answer`);
  return lines.join('\n');
}

/** `schemaPath`: mapping.schema.json as the written file reaches it, for editors' completion and checks. */
export function initialMapping(name: string, schemaPath: string): string {
  return [
    `# yaml-language-server: $schema=${schemaPath}`,
    `# The mapping of ${name}, as "adapter-engine init" wrote it: every contract route forwards the`,
    '# platform\'s request to the same path on the ERP. Change each call to the ERP\'s endpoint and each',
    '# output to build the contract\'s data from the ERP\'s answer; delete an operation to leave its route',
    '# unmapped. The format: docs/mapping-format.md. Check it: npx adapter-engine validate <this file>.',
    'version: 1',
    `name: ${name}`,
    'system:',
    '  baseUrl: ${ERP_URL:?the ERP\'s API address, e.g. https://erp.example.com/api/v1}',
    '  headers: { Accept: application/json }',
    '  # auth: { type: bearer, token: "${ERP_TOKEN:?the ERP\'s API token}" }   # docs/connecting-an-erp.md',
    'operations:',
    ROUTES.map(operation).join('\n\n'),
    '',
  ].join('\n');
}

/** The platform's input of a case: what the schema requires, and every query or path parameter (the calls read them). */
function exampleInput(route: RouteSpec): unknown {
  const required = route.inputSchema ? minimalExample(route.inputSchema) : {};
  if (route.inputSource !== 'query' && route.inputSource !== 'path') return required;
  return { ...Object.fromEntries(route.params.map((param) => [param, 'example'])), ...(required as Record<string, unknown>) };
}

function testCase(route: RouteSpec): string {
  const input = route.inputSchema ? `\n    input: ${JSON.stringify(exampleInput(route))}` : '';
  return [
    `  - name: ${route.operationId} answers AdapterApiClientFailed when the ERP does not answer`,
    `    operation: ${route.operationId}${input}`,
    '    answers:',
    `      ${CALL}: { error: TIMEOUT }`,
    '    expect:',
    '      result: AdapterApiClientFailed',
  ].join('\n');
}

/** `schemaLine`: the test file's yaml-language-server line (testSchemaLine). */
export function initialTests(name: string, schemaLine: string): string {
  return [
    schemaLine,
    `# Tests of ${name}.yaml: npx adapter-engine test <this file>. Each case gives the platform's input,`,
    '# the ERP\'s answers by call name and what the answer must hold; nothing is sent to any ERP. Add a',
    '# case with a real ERP answer per route as you map it (docs/cli.md#test).',
    'cases:',
    ROUTES.map(testCase).join('\n'),
    '',
  ].join('\n');
}
