import fs from 'node:fs';
import { hasResult } from '../contract/routes';
import { createSchemaRegistry, type SchemaRegistry } from '../contract/schema-registry';
import type { MappingIssue } from '../errors';
import { isJsonType, wireOf } from '../http/client';
import { sameXmlInfoset } from '../xml/infoset';
import { checkMappingFile } from '../mapping/load';
import type { Mapping } from '../mapping/model';
import { parseYamlSource, type PathSegment, type YamlSource } from '../mapping/yaml-source';
import { measureCoverage, type Coverage } from './coverage';
import { answerableCalls, checkAnswers, createAnsweringClient, type AnsweringClient } from './answers';
import { noMasking } from '../mapping/mask';
import { partialMatch, type Mismatch } from './partial-match';
import { resolveOperation } from './resolve-operation';
import { runCase, runPushCase, type CaseRun, type TraceStep } from './run-case';
import { checkTestFileText, readTestFile, type ExpectedRequest, type ExpectedRequests, type OperationCase, type PushCase, type TestCase } from './test-file';
import { displayName, issueAt } from '../mapping/yaml-file';

interface CaseResult {
  readonly name: string;
  readonly operation: string;
  readonly at: string;
  readonly passed: boolean;
  readonly mismatches: readonly Mismatch[];
  /** Why the engine failed the operation, when it did: helps read an unexpected result. */
  readonly failure?: string;
  /** Why the case could not run on this mapping (a call it names that the operation no longer makes); it fails, the others run. */
  readonly problems?: readonly MappingIssue[];
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
    ...(expected.body === undefined ? [] : compareBody(expected.body, actual, `${where}.body`)),
    ...(expected.soapAction === undefined ? [] : partialMatch(expected.soapAction, soapActionOf(actual.headers), `${where}.soapAction`)),
  ];
}

const XML_TYPE = /^(?:text|application)\/(?:[\w.+-]*\+)?xml\s*(?:;|$)/i;

/** The SOAP action a request carried: SOAPAction (1.1, unquoted) or the Content-Type's action parameter (1.2). */
function soapActionOf(headers: Readonly<Record<string, string>>): string | undefined {
  const lower = lowerKeys(headers) as Record<string, string | undefined>;
  const header = lower.soapaction;
  if (header !== undefined) return header.replace(/^"(.*)"$/, '$1');
  return /;\s*action="([^"]*)"/i.exec(lower['content-type'] ?? '')?.[1];
}

/**
 * The body as it went on the wire: an expected text is the exact text sent (a text body sent as JSON
 * goes quoted, and fails here); an expected object or list needs a JSON body, matched partially.
 */
function compareBody(expected: unknown, actual: RequestStep, where: string): Mismatch[] {
  const wire = wireOf(actual.body, actual.headers);
  // XML is compared as an infoset: namespaces by URI whatever the prefix, attribute order and layout ignored.
  if (typeof expected === 'string' && wire.text !== undefined && XML_TYPE.test(wire.contentType ?? '')) {
    const difference = sameXmlInfoset(expected, wire.text);
    return difference ? [{ path: `${where}${difference.path ? ` ${difference.path}` : ''}`, expected, actual: wire.text, note: difference.message }] : [];
  }
  if (typeof expected === 'string') return partialMatch(expected, wire.text, where);
  if (wire.contentType !== undefined && !isJsonType(wire.contentType)) return [{ path: where, expected, actual: wire.text, note: `the call sent ${wire.contentType}, not JSON` }];
  return partialMatch(expected, actual.body, where);
}

function checkRequests(expected: ExpectedRequests, steps: readonly TraceStep[]): Mismatch[] {
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

/** What operation and push cases both check: every call answered, the requests made, the delivery. */
function commonMismatches(client: AnsweringClient, expect: { requests?: ExpectedRequests; delivery?: string }, steps: readonly TraceStep[], what: string): Mismatch[] {
  const mismatches: Mismatch[] = client.unanswered.map((call) => ({ path: `answers.${call.split(' ')[0]}`, expected: 'a recorded answer', actual: undefined, note: `the ${what} called ${call} but the case gives no answer for it` }));
  if (expect.requests) mismatches.push(...checkRequests(expect.requests, steps));
  if (expect.delivery !== undefined) {
    const delivery = steps.find((step) => step.step === 'delivery');
    const actual = delivery?.step === 'delivery' ? `${delivery.verdict}${delivery.message ? ` (${delivery.message})` : ''}` : `no outbox delivery (the ${what} delivers directly, or was not stored)`;
    if (delivery?.step !== 'delivery' || delivery.verdict !== expect.delivery) mismatches.push({ path: 'delivery', expected: expect.delivery, actual });
  }
  return mismatches;
}

/**
 * An element of a recorded XML answer that repeated without being in the call's lists: with one such
 * element the ERP's answer gives an object, not a list, and the mapping reads it wrong. Warned once per
 * call and element, at the call.
 */
function noteRepeats(repeats: Map<string, MappingIssue>, mapping: Mapping, steps: readonly TraceStep[]): void {
  for (const step of steps) {
    if (step.step !== 'response' || !step.repeated) continue;
    const name = step.call.replace(/\[\d+\]$/, '');
    const call = [...mapping.operations.values(), ...mapping.pushes.values()].flatMap((owner) => ('calls' in owner ? owner.calls : [])).find((candidate) => candidate.name === name);
    for (const path of step.repeated) {
      const key = `${name} ${path}`;
      if (repeats.has(key) || !call) continue;
      const element = path.split('.').pop() as string;
      repeats.set(key, { file: call.origin.file, line: call.origin.line, col: call.origin.col, path: `calls.${name}`, severity: 'warning', code: 'XML_LIST_UNDECLARED', message: `calls.${name}: ${element} repeats in a recorded answer (${path}) but is not in the call's lists:; an answer with one ${element} gives an object instead of a list. Add it: lists: [${element}]` });
    }
  }
}

async function runPushOne(coverage: Coverage, testCase: PushCase, at: string, schemas: SchemaRegistry, repeats: Map<string, MappingIssue>): Promise<CaseResult> {
  const client = createAnsweringClient({ answers: testCase.answers ?? {} });
  const run = await runPushCase(coverage.mapping, testCase.push, testCase.input, client, noMasking, { schemas });
  noteRepeats(repeats, coverage.mapping, run.steps);
  const { expect } = testCase;
  const mismatches = commonMismatches(client, expect, run.steps, 'push');
  if (run.status !== expect.status) mismatches.push({ path: 'status', expected: expect.status, actual: `${run.status} (${run.result})` });
  if (expect.problems !== undefined) mismatches.push(...partialMatch(expect.problems, (run.body as { problems?: unknown }).problems, 'problems'));
  const body = run.body as { error?: string };
  return { name: testCase.name, operation: `push/${testCase.push}`, at, passed: mismatches.length === 0, mismatches, failure: body.error, resultName: run.result };
}

async function runOne(coverage: Coverage, testCase: OperationCase, at: string, schemas: SchemaRegistry, repeats: Map<string, MappingIssue>): Promise<CaseResult> {
  const resolved = resolveOperation(testCase.operation);
  if (!resolved) throw new Error(`unresolved operation ${testCase.operation} passed the file check`);
  const client = createAnsweringClient({ answers: testCase.answers ?? {} });
  const run = await runCase(coverage.mapping, resolved.route, testCase.input ?? resolved.input, client, noMasking, { schemas });
  noteRepeats(repeats, coverage.mapping, run.steps);
  for (const step of run.steps) if (step.step === 'output') coverage.recordOutput(resolved.route.operationId, step.data);
  const { expect } = testCase;
  const mismatches = commonMismatches(client, expect, run.steps, 'operation');
  if (run.resultName !== expect.result) {
    mismatches.push({ path: 'result', expected: expect.result, actual: `${run.resultName} (${run.envelope.result})` });
  }
  if (expect.data !== undefined) mismatches.push(...partialMatch(expect.data, run.envelope.data, 'data'));
  if (expect.externalMessage !== undefined) mismatches.push(...partialMatch(expect.externalMessage, run.envelope.externalMessage, 'externalMessage'));
  if (expect.validationStatus !== undefined) mismatches.push(...partialMatch(expect.validationStatus, run.envelope.validationStatus, 'validationStatus'));
  return {
    name: testCase.name,
    operation: resolved.route.operationId,
    at,
    passed: mismatches.length === 0,
    mismatches,
    failure: run.failure && failureText(run.failure),
    resultName: run.resultName,
  };
}

/**
 * The engine's failure as a case shows it: a contract problem of the output on a line of its own, at the
 * mapping line that made the value (the output's field), so each mistake is one line that says where.
 */
function failureText(failure: NonNullable<CaseRun['failure']>): string {
  const located = (failure.problems ?? []).filter((problem) => problem.madeAt !== undefined);
  if (located.length === 0) return `${failure.kind}: ${failure.message}`;
  const lines = located.map((problem) => `${displayName(problem.madeAt?.file ?? '')}:${problem.madeAt?.line}:${problem.madeAt?.col}  ${problem.path} ${problem.message}`);
  return [`${failure.kind}: ${failure.message.split(': ')[0]}:`, ...lines].join('\n');
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

  // A case that cannot run (a call or result that no longer exists) fails alone; the others run.
  const problems = tests.cases.map((testCase, index) => caseIssues(source, ['cases', index], testCase, mapping, mappingName));

  // The mapping's text again, without ${VAR} expansion, only to place findings inside its expressions.
  const mappingSource = parseYamlSource(mappingName, fs.readFileSync(mappingPath, 'utf8'), null).source;
  if (!mappingSource) throw new Error(`${mappingName} loaded but does not parse again`);
  const coverage = measureCoverage(mapping, mappingSource);
  const cases: CaseResult[] = [];
  const schemas = createSchemaRegistry();
  const repeats = new Map<string, MappingIssue>();
  for (const [index, testCase] of tests.cases.entries()) {
    const pos = source.at(['cases', index]);
    const where = `${file}:${pos.line}:${pos.col}`;
    if (problems[index].length > 0) cases.push({ name: testCase.name, operation: testCase.operation ?? `push/${testCase.push ?? ''}`, at: where, passed: false, mismatches: [], problems: problems[index] });
    else cases.push(testCase.push !== undefined ? await runPushOne(coverage, testCase, where, schemas, repeats) : await runOne(coverage, testCase, where, schemas, repeats));
  }
  return { file, mapping: mappingName, issues: [], warnings: [...warnings, ...repeats.values()], cases, coverage: coverage.findings() };
}

/**
 * What keeps a case from running on this mapping: an operation or push it does not have, a result the
 * route does not have, an answer or expected request for a call it does not make.
 */
function caseIssues(source: YamlSource, at: readonly PathSegment[], testCase: TestCase, mapping: Mapping, mappingName: string): MappingIssue[] {
  if (testCase.push !== undefined || testCase.operation === undefined) return pushCaseIssues(source, at, testCase, mapping);
  const resolved = resolveOperation(testCase.operation);
  if (!resolved) return [issueAt(source, [...at, 'operation'], 'UNKNOWN_OPERATION', `"${testCase.operation}" is not a contract operation or route (run "adapter-engine routes ${mappingName}" for the list)`)];
  const { route } = resolved;
  const issues: MappingIssue[] = [];
  const wrong = Object.keys(testCase.expect).filter((key) => key === 'status' || key === 'problems');
  if (wrong.length > 0) issues.push(issueAt(source, [...at, 'expect', wrong[0]], 'SETTINGS_DISAGREE', `expect.${wrong[0]} is for push cases; a case of ${route.operationId} expects result (and data, externalMessage, validationStatus, requests, delivery)`));
  if (testCase.expect.result === undefined) issues.push(issueAt(source, [...at, 'expect'], 'MISSING_SETTING', `a case of ${route.operationId} needs expect.result, e.g. ${route.successResult}`));
  else if (!hasResult(route, testCase.expect.result)) {
    issues.push(issueAt(source, [...at, 'expect', 'result'], 'UNKNOWN_RESULT', `"${testCase.expect.result}" is not a result of ${route.method} ${route.path}; use one of: ${Object.keys(route.results).join(', ')}`));
  }
  const operation = mapping.operations.get(route.operationId);
  if (testCase.answers) issues.push(...checkAnswers(source, [...at, 'answers'], testCase.answers, operation, mapping.system));
  const calls = answerableCalls(operation, mapping.system);
  for (const name of Object.keys(testCase.expect.requests ?? {})) {
    if (!calls.includes(name)) issues.push(issueAt(source, [...at, 'expect', 'requests', name], 'UNKNOWN_CALL_NAME', `"${name}" is not a call of ${route.operationId}${calls.length ? `; it makes: ${calls.join(', ')}` : '; it makes no calls'}`, true));
  }
  return issues.sort((a, b) => a.line - b.line || a.col - b.col);
}

/**
 * The cases of an existing test file that cannot run on the mapping (`record` says so before it adds
 * one): each problem at its line; none when the file is missing or is no test file (the append says why).
 */
export function casesThatCannotRun(testFile: string, mapping: Mapping): MappingIssue[] {
  if (!fs.existsSync(testFile)) return [];
  const read = readTestFile(testFile);
  if (!read.source || !read.file) return [];
  const { source } = read;
  return read.file.cases.flatMap((testCase, index) => caseIssues(source, ['cases', index], testCase, mapping, displayName(mapping.file)).map((issue) => ({ ...issue, message: `the case "${testCase.name}" cannot run: ${issue.message}` })));
}

/**
 * A test file's text as `test` checks it before it runs a case: its shape (the test files' schema),
 * then, on the mapping, what keeps each case from running; each problem at its line.
 */
export function testTextIssues(name: string, text: string, mapping: Mapping | undefined): MappingIssue[] {
  const checked = checkTestFileText(name, text);
  if (!checked.source || !checked.file || !mapping) return checked.issues;
  const { source } = checked;
  return checked.file.cases.flatMap((testCase, index) => caseIssues(source, ['cases', index], testCase, mapping, displayName(mapping.file)));
}

/** A push case names a push of the mapping, expects a status (not a result), and answers only its calls. */
function pushCaseIssues(source: YamlSource, at: readonly PathSegment[], testCase: TestCase, mapping: Mapping): MappingIssue[] {
  if (testCase.push === undefined) return [issueAt(source, at, 'MISSING_SETTING', 'a case names what it runs: operation (a contract route) or push (a push endpoint of the mapping)')];
  if (testCase.operation !== undefined) return [issueAt(source, [...at, 'push'], 'SETTINGS_DISAGREE', 'a case runs an operation or a push, not both')];
  const push = mapping.pushes.get(testCase.push);
  if (!push) return [issueAt(source, [...at, 'push'], 'UNKNOWN_OPERATION', `"${testCase.push}" is not a push endpoint of ${mapping.name}; it has ${[...mapping.pushes.keys()].join(', ') || 'none'}`)];
  const issues: MappingIssue[] = [];
  const wrong = Object.keys(testCase.expect).find((key) => ['result', 'data', 'externalMessage', 'validationStatus'].includes(key));
  if (wrong) issues.push(issueAt(source, [...at, 'expect', wrong], 'SETTINGS_DISAGREE', `expect.${wrong} is for contract operations; a push case expects status (and problems, requests, delivery)`));
  if ((testCase.expect as { status?: number }).status === undefined) issues.push(issueAt(source, [...at, 'expect'], 'MISSING_SETTING', 'a push case needs expect.status: 202 when the push is stored, 400 when it is refused'));
  if (testCase.input === undefined) issues.push(issueAt(source, at, 'MISSING_SETTING', 'a push case needs input: the JSON the ERP pushes'));
  const calls = push.calls.map((call) => call.name);
  const unknown = (names: readonly string[], where: PathSegment[]) => names.filter((name) => !calls.includes(name)).map((name) => issueAt(source, [...where, name], 'UNKNOWN_CALL_NAME', `"${name}" is not a call of the push ${push.name}; it makes: ${calls.join(', ')}`, true));
  issues.push(...unknown(Object.keys(testCase.answers ?? {}), [...at, 'answers']), ...unknown(Object.keys(testCase.expect.requests ?? {}), [...at, 'expect', 'requests']));
  return issues;
}
