import fs from 'node:fs';
import { hasResult } from '../contract/routes';
import { createSchemaRegistry, type SchemaRegistry } from '../contract/schema-registry';
import type { MappingIssue } from '../errors';
import { checkMappingFile } from '../mapping/load';
import { parseYamlSource } from '../mapping/yaml-source';
import { measureCoverage, type Coverage } from './coverage';
import { checkAnswers, createAnsweringClient } from './answers';
import { noMasking } from '../mapping/mask';
import { partialMatch, type Mismatch } from './partial-match';
import { resolveOperation } from './resolve-operation';
import { runCase, type TraceStep } from './run-case';
import { readTestFile, type ExpectedRequest, type TestCase } from './test-file';
import { displayName, issueAt } from './yaml-file';

export interface CaseResult {
  readonly name: string;
  readonly operation: string;
  readonly at: string;
  readonly passed: boolean;
  readonly mismatches: readonly Mismatch[];
  /** Why the engine failed the operation, when it did: helps read an unexpected result. */
  readonly failure?: string;
  readonly resultName?: string;
}

export interface FileResult {
  readonly file: string;
  readonly mapping?: string;
  /** Problems of the test file or its mapping: the file's cases could not run. */
  readonly issues: readonly MappingIssue[];
  /** Variables the mapping reads that are not set (the cases run without them: nothing is sent). */
  readonly warnings: readonly MappingIssue[];
  readonly cases: readonly CaseResult[];
  /** What the cases never exercised: expressions that always gave nothing, output fields never filled (warnings). */
  readonly coverage: readonly MappingIssue[];
}

type RequestStep = Extract<TraceStep, { step: 'request' }>;

function lowerKeys(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key.toLowerCase(), value]));
}

function compareRequest(expected: ExpectedRequest, actual: RequestStep, where: string): Mismatch[] {
  return [
    ...(expected.method === undefined ? [] : partialMatch(expected.method.toUpperCase(), actual.method, `${where}.method`)),
    ...(expected.path === undefined ? [] : partialMatch(expected.path, actual.path, `${where}.path`)),
    ...(expected.query === undefined ? [] : partialMatch(expected.query, actual.query, `${where}.query`)),
    ...(expected.headers === undefined ? [] : partialMatch(lowerKeys(expected.headers), lowerKeys(actual.headers), `${where}.headers`)),
    ...(expected.body === undefined ? [] : partialMatch(expected.body, actual.body, `${where}.body`)),
  ];
}

function checkRequests(expected: NonNullable<TestCase['expect']['requests']>, steps: readonly TraceStep[]): Mismatch[] {
  return Object.entries(expected).flatMap(([call, given]) => {
    const made = steps.filter((step): step is RequestStep => step.step === 'request' && step.call === call);
    const list: readonly ExpectedRequest[] = Array.isArray(given) ? given : [given as ExpectedRequest];
    return list.flatMap((request, index) => {
      const where = `requests.${call}${Array.isArray(given) ? `[${index}]` : ''}`;
      const actual = made[index];
      if (!actual) return [{ path: where, expected: request, actual: undefined, note: `the call was made ${made.length} time(s)` }];
      return compareRequest(request, actual, where);
    });
  });
}

async function runOne(coverage: Coverage, testCase: TestCase, at: string, schemas: SchemaRegistry): Promise<CaseResult> {
  const resolved = resolveOperation(testCase.operation);
  if (!resolved) throw new Error(`unresolved operation ${testCase.operation} passed the file check`);
  const client = createAnsweringClient({ answers: testCase.answers ?? {} });
  const run = await runCase(coverage.mapping, resolved.route, testCase.input ?? resolved.input, client, noMasking, { schemas });
  for (const step of run.steps) if (step.step === 'output') coverage.recordOutput(resolved.route.operationId, step.data);
  const { expect } = testCase;
  const mismatches: Mismatch[] = [];
  for (const call of client.unanswered) {
    mismatches.push({ path: `answers.${call.split(' ')[0]}`, expected: 'a recorded answer', actual: undefined, note: `the operation called ${call} but the case gives no answer for it` });
  }
  if (run.resultName !== expect.result) {
    mismatches.push({ path: 'result', expected: expect.result, actual: `${run.resultName} (${run.envelope.result})` });
  }
  if (expect.data !== undefined) mismatches.push(...partialMatch(expect.data, run.envelope.data, 'data'));
  if (expect.externalMessage !== undefined) mismatches.push(...partialMatch(expect.externalMessage, run.envelope.externalMessage, 'externalMessage'));
  if (expect.validationStatus !== undefined) mismatches.push(...partialMatch(expect.validationStatus, run.envelope.validationStatus, 'validationStatus'));
  if (expect.requests) mismatches.push(...checkRequests(expect.requests, run.steps));
  if (expect.delivery !== undefined) {
    const delivery = run.steps.find((step) => step.step === 'delivery');
    const actual = delivery?.step === 'delivery' ? `${delivery.verdict}${delivery.message ? ` (${delivery.message})` : ''}` : 'no outbox delivery (the operation delivers directly)';
    if (delivery?.step !== 'delivery' || delivery.verdict !== expect.delivery) mismatches.push({ path: 'delivery', expected: expect.delivery, actual });
  }
  return {
    name: testCase.name,
    operation: resolved.route.operationId,
    at,
    passed: mismatches.length === 0,
    mismatches,
    failure: run.failure && `${run.failure.kind}: ${run.failure.message}`,
    resultName: run.resultName,
  };
}

/** Checks a test file against its mapping (operations, result names, call names), then runs every case. */
export async function runTestFile(filePath: string, extraEnv: Readonly<Record<string, string>>): Promise<FileResult> {
  const file = displayName(filePath);
  const read = readTestFile(filePath);
  if (!read.source || !read.file || !read.mappingPath) return { file, issues: read.issues, warnings: [], cases: [], coverage: [] };
  const { source, file: tests, mappingPath } = read;
  const mappingName = displayName(mappingPath);
  if (!fs.existsSync(mappingPath)) {
    const where = tests.mapping ? ['mapping'] : [];
    return { file, mapping: mappingName, issues: [issueAt(source, where, 'FILE_UNREADABLE', `the mapping ${mappingName} does not exist${tests.mapping ? '' : '; name it with "mapping:"'}`)], warnings: [], cases: [], coverage: [] };
  }
  const loaded = checkMappingFile(mappingPath, { env: { ...process.env, ...tests.env, ...extraEnv }, displayName: mappingName, unsetVariables: 'warning' });
  if (!loaded.mapping) return { file, mapping: mappingName, issues: loaded.issues.filter((issue) => issue.severity === 'error'), warnings: [], cases: [], coverage: [] };
  const mapping = loaded.mapping;
  const warnings = loaded.issues.filter((issue) => issue.code === 'ENV_UNSET');

  const issues: MappingIssue[] = [];
  tests.cases.forEach((testCase, index) => {
    const at = ['cases', index];
    const resolved = resolveOperation(testCase.operation);
    if (!resolved) {
      issues.push(issueAt(source, [...at, 'operation'], 'UNKNOWN_OPERATION', `"${testCase.operation}" is not a contract operation or route (run "adapter-engine routes ${mappingName}" for the list)`));
      return;
    }
    const { route } = resolved;
    if (!hasResult(route, testCase.expect.result)) {
      issues.push(issueAt(source, [...at, 'expect', 'result'], 'UNKNOWN_RESULT', `"${testCase.expect.result}" is not a result of ${route.method} ${route.path}; use one of: ${Object.keys(route.results).join(', ')}`));
    }
    const operation = mapping.operations.get(route.operationId);
    if (testCase.answers) issues.push(...checkAnswers(source, [...at, 'answers'], testCase.answers, operation));
    const calls = operation?.mode === 'flow' ? operation.calls.map((call) => call.name) : [];
    for (const name of Object.keys(testCase.expect.requests ?? {})) {
      if (!calls.includes(name)) issues.push(issueAt(source, [...at, 'expect', 'requests', name], 'UNKNOWN_CALL_NAME', `"${name}" is not a call of ${route.operationId}${calls.length ? `; it makes: ${calls.join(', ')}` : '; it makes no calls'}`, true));
    }
  });
  if (issues.length > 0) return { file, mapping: mappingName, issues: issues.sort((a, b) => a.line - b.line || a.col - b.col), warnings, cases: [], coverage: [] };

  // The mapping's text again, without ${VAR} expansion, only to place findings inside its expressions.
  const mappingSource = parseYamlSource(mappingName, fs.readFileSync(mappingPath, 'utf8'), null).source;
  if (!mappingSource) throw new Error(`${mappingName} loaded but does not parse again`);
  const coverage = measureCoverage(mapping, mappingSource);
  const cases: CaseResult[] = [];
  const schemas = createSchemaRegistry();
  for (const [index, testCase] of tests.cases.entries()) {
    const pos = source.at(['cases', index]);
    cases.push(await runOne(coverage, testCase, `${file}:${pos.line}:${pos.col}`, schemas));
  }
  return { file, mapping: mappingName, issues: [], warnings, cases, coverage: coverage.findings() };
}
