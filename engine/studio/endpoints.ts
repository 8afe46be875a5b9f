import fs from 'node:fs';
import path from 'node:path';
import { ROUTES } from '../contract/routes';
import { minimalExample } from '../contract/schema-examples';
import { functionHelp } from '../expressions/function-help';
import { filterFromQuery } from '../journal/query';
import { listFilterFromQuery } from '../outbox/support';
import type { Logger } from '../log';
import { appendCase, inputOf, testCaseOf } from '../testing/recorded-case';
import { resolveOperation } from '../testing/resolve-operation';
import { runTestFile } from '../testing/test-runner';
import { answerFields } from './answer-fields';
import { loadedFile, withText } from './loaded-file';
import { outboxView, settleEvent } from './outbox-view';
import { StudioError } from './studio-error';
import { tryRoute, type TrySource } from './try-route';
import { testFileOf } from './views';
import type { StudioSources } from './sources';
import type { StudioFile, Workspace } from './workspace';

/**
 * The studio's JSON API under /studio/api, as one table: the page uses these and nothing else, the
 * OpenAPI document lists them. Whatever changes something (POST, PUT) is behind the session token and
 * the Origin check.
 */
interface Call {
  readonly params: readonly string[];
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

interface Common {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Under /studio/api; `{name}` is a parameter. */
  readonly path: string;
  readonly summary: string;
}

/**
 * `read`: anywhere the studio is served; `settle`: retry or drop a dead letter (serve needs --studio-write);
 * `edit`: files, runs and tests, only in `adapter-engine studio` (its workspace).
 */
export type Endpoint = Common & (
  | { readonly kind: 'read' | 'settle'; readonly run: (sources: StudioSources, call: Call, log: Logger) => Promise<unknown> }
  | { readonly kind: 'edit'; readonly run: (workspace: Workspace, call: Call, log: Logger) => Promise<unknown> }
);

function text(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new StudioError(400, `give ${name} as text`);
  return value;
}

function fields(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new StudioError(400, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

function fileOf(workspace: Workspace, name: unknown): StudioFile {
  const file = workspace.file(text(name, 'file'));
  if (!file) throw new StudioError(404, `no mapping file ${String(name)} in this studio; it has ${workspace.files.map((each) => each.name).join(', ')}`);
  return file;
}

/** What the editor opens: a mapping file of the studio, or the test file beside one (`acme.test.yaml`, tests true). */
function editedOf(workspace: Workspace, name: unknown): { file: StudioFile; tests: boolean } {
  const tests = workspace.files.find((each) => testFileOf(each) === name);
  return tests ? { file: tests, tests: true } : { file: fileOf(workspace, name), tests: false };
}

async function exportAsTest(workspace: Workspace, id: string): Promise<{ testFile: string; name: string }> {
  const entry = await workspace.request(id);
  if (!entry) throw new StudioError(404, `no request ${id} in the journal`);
  const served = workspace.files.find((each) => each.serving?.name === entry.mapping);
  const route = resolveOperation(entry.operation)?.route;
  if (!served || !route || !entry.envelope) throw new StudioError(409, `request ${id} is not a contract route of a mapping of this studio`);
  // A run of the last good mapping of a file that no longer loads would record that older mapping's output.
  const file = loadedFile(workspace, served.name, 'take a new test case');
  const name = `${entry.operation} at ${entry.at}: ${entry.result}`;
  const testCase = testCaseOf({ route, input: inputOf(entry, route), steps: entry.steps, resultName: entry.result, envelope: entry.envelope }, name);
  if ('problem' in testCase) throw new StudioError(409, `the request cannot be a test case: ${testCase.problem}`);
  appendCase(testFileOf(file), testCase, file.path);
  return { testFile: testFileOf(file), name };
}

export const ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', path: '/mappings', summary: 'The mapping files: routes, pushes, base URL and auth kind (masked), load problems with the lines around them', kind: 'read',
    run: async (sources) => ({ mappings: sources.mappings() }) },
  { method: 'GET', path: '/requests', summary: 'The request journal, newest first (filters: mapping, operation, result, outcome, contains, from, to, limit)', kind: 'read',
    run: async (sources, call) => {
      const asked = filterFromQuery(call.query);
      if ('error' in asked) throw new StudioError(400, asked.error);
      return { requests: await sources.requests(asked.filter) };
    } },
  { method: 'GET', path: '/results', summary: 'The contract\'s result names, for the Requests page\'s result filter', kind: 'read',
    run: async () => ({ results: [...new Set(ROUTES.flatMap((route) => Object.keys(route.results)))].sort() }) },
  { method: 'GET', path: '/requests/{id}', summary: 'One request in full (masked): its trace and envelope', kind: 'read',
    run: async (sources, call) => {
      const entry = await sources.request(call.params[0]);
      if (!entry) throw new StudioError(404, `no request ${call.params[0]} in the journal`);
      return entry;
    } },
  { method: 'GET', path: '/outbox', summary: 'Pending, retrying and dead events and pushes per mapping and kind, and the events asked as the admin listener\'s GET /outbox asks them (status: pending, dead, delivered, refused, dropped; order: accepted or settled; kind, mapping, operation, key, limit)', kind: 'read',
    run: (sources, call) => {
      const asked = listFilterFromQuery(call.query as Record<string, string | string[] | undefined>);
      if ('error' in asked) throw new StudioError(400, asked.error);
      return outboxView(sources, Date.now(), asked.filter);
    } },
  { method: 'GET', path: '/operations', summary: 'The contract\'s operations: where each reads its input (parameters by name, or a body) and the smallest input its schema accepts', kind: 'edit',
    run: async () => ({ operations: ROUTES.map((route) => ({
      operation: route.operationId, method: route.method, path: route.path, kind: route.kind, inputSource: route.inputSource, params: route.params,
      example: route.inputSchema ? minimalExample(route.inputSchema) : {},
    })) }) },
  { method: 'GET', path: '/answer-fields', summary: 'The body fields of each call\'s answers recorded in a mapping\'s test file and of its last "Try a route" (query: file), for the editor\'s completion of calls.<name>.body.', kind: 'edit',
    run: async (workspace, call) => {
      const file = fileOf(workspace, call.query.file);
      return { calls: answerFields(testFileOf(file), workspace.tried(file)) };
    } },
  { method: 'GET', path: '/functions', summary: 'The functions an expression can call (the engine\'s helpers and JSONata\'s), for the editor\'s hover help', kind: 'edit',
    run: async () => ({ functions: functionHelp() }) },
  { method: 'GET', path: '/source', summary: 'The text of a mapping file or of the test file beside one (query: file; a missing test file is empty)', kind: 'edit',
    run: async (workspace, call) => {
      const { file, tests } = editedOf(workspace, call.query.file);
      const at = tests ? testFileOf({ name: file.path }) : file.path;
      return { file: tests ? testFileOf(file) : file.name, text: tests && !fs.existsSync(at) ? '' : fs.readFileSync(at, 'utf8') };
    } },
  { method: 'POST', path: '/check', summary: 'Problems of an unsaved text of a mapping file (as validate prints them) or of a test file (its schema, and the cases against the mapping, as test checks them)', kind: 'edit',
    run: async (workspace, call) => {
      const body = fields(call.body);
      const { file, tests } = editedOf(workspace, body.file);
      const given = typeof body.text === 'string' ? body.text : '';
      return { issues: withText(tests ? workspace.checkTests(file, given) : workspace.check(file, given)) };
    } },
  { method: 'PUT', path: '/source', summary: 'Save a mapping file or its test file (atomically, as typed); a mapping text that does not load keeps the last good mapping serving', kind: 'edit',
    run: async (workspace, call) => {
      const body = fields(call.body);
      const { file, tests } = editedOf(workspace, body.file);
      if (tests) {
        const issues = workspace.saveTests(file, text(body.text, 'text'));
        return { saved: path.basename(testFileOf(file)), loads: !issues.some((issue) => issue.severity === 'error'), issues: withText(issues) };
      }
      workspace.save(file, text(body.text, 'text'));
      return { saved: path.basename(file.path), loads: file.loads, issues: withText(file.issues) };
    } },
  { method: 'POST', path: '/mappings', summary: 'Start a new mapping (body: name) as init does: <name>.yaml and <name>.test.yaml in the studio\'s mappings folder, served at once when it loads; 409 when a file or a mapping of that name exists', kind: 'edit',
    run: async (workspace, call) => {
      const created = workspace.create(text(fields(call.body).name, 'the mapping\'s name'));
      if ('problem' in created) throw new StudioError(created.reason === 'exists' ? 409 : 400, created.problem);
      return { file: created.name, testFile: testFileOf(created), loads: created.loads, issues: withText(created.issues) };
    } },
  { method: 'POST', path: '/try', summary: 'Run one operation (source: erp or recorded) and answer its trace and envelope; 409 while the file does not load (issues), when no recorded case answers the input (closest), or when it would send calls that can change the ERP without "confirm": true (calls)', kind: 'edit',
    run: (workspace, call) => {
      const body = fields(call.body);
      const source: TrySource = body.source === 'recorded' ? 'recorded' : 'erp';
      return tryRoute(workspace, { file: text(body.file, 'file'), operation: text(body.operation, 'operation'), input: body.input, source, confirm: body.confirm === true });
    } },
  { method: 'POST', path: '/requests/{id}/test-case', summary: 'Append a journaled request to its mapping\'s test file as a test case', kind: 'edit',
    run: (workspace, call) => exportAsTest(workspace, call.params[0]) },
  { method: 'POST', path: '/tests', summary: 'Run a mapping\'s test file: each case, its differences, the coverage; 409 with the issues while the file does not load', kind: 'edit',
    run: async (workspace, call) => {
      const file = loadedFile(workspace, text(fields(call.body).file, 'file'), 'be tested');
      if (!fs.existsSync(testFileOf(file))) throw new StudioError(404, `${file.name} has no test file ${testFileOf(file)}`);
      return runTestFile(testFileOf(file), {});
    } },
  { method: 'POST', path: '/outbox/{id}/retry', summary: 'Make a dead event pending again', kind: 'settle',
    run: async (sources, call, log) => ({ message: await settleEvent(sources, log, call.params[0], 'retry', undefined) }) },
  { method: 'POST', path: '/outbox/{id}/drop', summary: 'Give an event up, with a reason (body: reason)', kind: 'settle',
    run: async (sources, call, log) => ({ message: await settleEvent(sources, log, call.params[0], 'drop', fields(call.body).reason as string | undefined) }) },
];
