import path from 'node:path';
import type { MappingIssue } from '../errors';
import { SCHEMAS_DIR, schemaReference } from '../paths';
import type { YamlSource } from '../mapping/yaml-source';
import type { DeliveryVerdict } from '../trace/steps';
import { ANSWERS_SCHEMA, type RecordedAnswers } from './answers';
import { checkYamlText, compileShape, readCheckedYaml } from '../mapping/yaml-file';

/**
 * Mapping tests: a YAML file next to the mapping (`example.test.yaml` beside `example.yaml`), each case
 * an input, the external system's answers by call name, and the expected envelope (partial match); or,
 * for a push endpoint, the pushed JSON, the platform's answers by call name, and the answer the ERP gets.
 */
export interface ExpectedRequest {
  readonly method?: string;
  readonly path?: string;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly soapAction?: string;
}

export type ExpectedRequests = Readonly<Record<string, ExpectedRequest | readonly ExpectedRequest[]>>;

/** A case of a contract operation. */
export interface OperationCase {
  readonly name: string;
  readonly operation: string;
  readonly push?: undefined;
  readonly input?: unknown;
  readonly answers?: RecordedAnswers;
  readonly expect: {
    readonly result: string;
    readonly data?: unknown;
    readonly externalMessage?: string | null;
    readonly validationStatus?: unknown;
    readonly requests?: ExpectedRequests;
    /** delivery: outbox operations: what the background delivery does with the event. */
    readonly delivery?: DeliveryVerdict;
  };
}

/** A case of a push endpoint: what the ERP pushes, the platform's answers, the ERP's answer and what the platform gets. */
export interface PushCase {
  readonly name: string;
  readonly push: string;
  readonly operation?: undefined;
  readonly input: unknown;
  readonly answers?: RecordedAnswers;
  readonly expect: {
    /** The HTTP status the ERP gets: 202 (stored) or 400 (refused, with problems). */
    readonly status: number;
    readonly problems?: unknown;
    readonly requests?: ExpectedRequests;
    /** What delivering the push's events to the platform does. */
    readonly delivery?: DeliveryVerdict;
  };
}

/** The file's shape admits both kinds in one list; the runner checks each is one or the other. */
export type TestCase = OperationCase | PushCase;

export interface TestFile {
  readonly mapping?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly cases: readonly TestCase[];
}

const REQUEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'What the call must have sent; every field is optional and partial.',
  properties: {
    method: { type: 'string', description: 'HTTP method.' },
    path: { type: 'string', description: 'Path under system.baseUrl (platform.baseUrl for a push), e.g. /sales-orders/SO-100001.' },
    query: { type: 'object', description: 'Query parameters (partial).' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Headers (partial; names are case-insensitive).' },
    body: { description: 'The body: a JSON value (partial match), or a text compared with the text on the wire (an XML text as an infoset: namespaces by URI, attribute order and layout ignored).' },
    soapAction: { type: 'string', description: "A SOAP call's action (SOAPAction for 1.1, the Content-Type's action for 1.2)." },
  },
};

const TEST_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['cases'],
  properties: {
    mapping: { type: 'string', minLength: 1, description: 'Mapping file, relative to this file; default: this file name without .test.' },
    env: { type: 'object', additionalProperties: { type: 'string' }, description: 'Variables for ${NAME} in the mapping; they win over the process environment.' },
    cases: {
      type: 'array',
      minItems: 1,
      description: 'The test cases.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'expect'],
        properties: {
          name: { type: 'string', minLength: 1, description: 'What the case shows.' },
          operation: { type: 'string', minLength: 1, description: 'Operation id or route, e.g. GetWorkOrderByCode or "GET /WorkOrders/Code".' },
          push: { type: 'string', minLength: 1, description: 'Instead of operation: a push endpoint of the mapping, e.g. NewOrder (POST /push/NewOrder).' },
          input: { description: 'Query or path parameters as an object, or the request body (for a push: the pushed JSON).' },
          answers: ANSWERS_SCHEMA,
          expect: {
            type: 'object',
            additionalProperties: false,
            properties: {
              result: { type: 'string', description: 'Result name of the route, e.g. Succeed (operation cases).' },
              status: { type: 'integer', description: 'Push cases: the HTTP status the ERP gets, 202 (stored) or 400 (refused).' },
              problems: { description: 'Push cases answered 400: the problems listed (partial match).' },
              data: { description: 'Expected data (partial match).' },
              externalMessage: { type: ['string', 'null'], description: 'Expected externalMessage (exact).' },
              validationStatus: { description: 'Expected validationStatus (partial match).' },
              delivery: { enum: ['delivered', 'retry', 'dead', 'refused'], description: 'delivery: outbox operations and pushes: delivered, retry (the receiver cannot take it now), dead (refused for good) or refused (refused for good on its first try, outbox.tryFirstMs, and the platform answered the refusal).' },
              requests: {
                type: 'object',
                additionalProperties: { anyOf: [REQUEST_SCHEMA, { type: 'array', items: REQUEST_SCHEMA }] },
                description: 'Call name to what it must have sent (a list when the call is made more than once).',
              },
            },
          },
        },
      },
    },
  },
};

const validateTestFile = compileShape(TEST_FILE_SCHEMA);

/** Where the test files' schema is published. */
const TEST_SCHEMA_ID = 'https://adapter-engine.dev/schemas/mapping-test.schema.json';

/** schemas/mapping-test.schema.json: the test files' JSON Schema for editors, as `npm run schema:mapping` writes it. */
export const TEST_SCHEMA_FILE = path.join(SCHEMAS_DIR, 'mapping-test.schema.json');

/** The schema the runner checks test files with, as a standalone JSON Schema document. */
export function testFileJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: TEST_SCHEMA_ID,
    title: 'Adapter engine mapping tests',
    description: 'Mapping tests (adapter-engine test): each case an input, the external system\'s recorded answers by call name, and the expected answer (partial match).',
    ...TEST_FILE_SCHEMA,
  };
}

/** The first line of a test file the engine writes: editors (the YAML language server) then check and complete it. */
export function testSchemaLine(testFile: string): string {
  return `# yaml-language-server: $schema=${schemaReference(testFile, TEST_SCHEMA_FILE, TEST_SCHEMA_ID)}`;
}

export function isTestFileName(name: string): boolean {
  return /\.test\.ya?ml$/.test(name);
}

/** A test file's text as readTestFile checks it: its shape (the test files' JSON Schema), each problem at its place. */
export function checkTestFileText(name: string, text: string): { source?: YamlSource; file?: TestFile; issues: MappingIssue[] } {
  const { source, issues } = checkYamlText(name, text, validateTestFile);
  return source ? { source, file: source.value as TestFile, issues } : { issues };
}

export function readTestFile(filePath: string): { source?: YamlSource; file?: TestFile; mappingPath?: string; issues: MappingIssue[] } {
  const { source, issues } = readCheckedYaml(filePath, validateTestFile);
  if (!source) return { issues };
  const file = source.value as TestFile;
  const mappingPath = file.mapping
    ? path.resolve(path.dirname(filePath), file.mapping)
    : filePath.replace(/\.test\.(ya?ml)$/, '.$1');
  return { source, file, mappingPath, issues };
}
