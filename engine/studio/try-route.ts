import fs from 'node:fs';
import type { Envelope } from '../contract/envelope';
import { createAnsweringClient, type RecordedAnswers } from '../testing/answers';
import { resolveOperation } from '../testing/resolve-operation';
import { maskerOf, runCase, type TraceStep } from '../testing/run-case';
import { readTestFile } from '../testing/test-file';
import { StudioError } from './studio-error';
import { testFileOf } from './views';
import type { StudioFile, Workspace } from './workspace';

/**
 * "Try a route": one operation run through the studio's Engine (`erp`: the ERP at the mapping's base
 * URL, the example ERP under --example-erp; the run is journaled and its events go to the outbox), or
 * on a fresh engine with the answers recorded in the mapping's test file (`recorded`: nothing is sent;
 * the run is journaled here too). Either way it is runCase, the code `dry-run` and `test` use.
 */
export type TrySource = 'erp' | 'recorded';

export interface TryRequest {
  readonly file: string;
  readonly operation: string;
  readonly input?: unknown;
  readonly source: TrySource;
}

export interface TryAnswer {
  readonly operation: string;
  readonly route: string;
  readonly source: string;
  readonly steps: readonly TraceStep[];
  readonly resultName: string;
  readonly failure?: { kind: string; message: string };
  readonly envelope: Envelope;
  /** The run's id in the journal (Requests page, "save as test case"). */
  readonly requestId?: string;
}

/** The first case of the operation in the mapping's test file that records answers. */
function recordedAnswers(file: StudioFile, operationId: string): RecordedAnswers {
  const testFile = testFileOf(file);
  if (!fs.existsSync(testFile)) throw new StudioError(409, `${file.name} has no test file (${testFile}) to take recorded answers from`);
  const cases = readTestFile(testFile).file?.cases ?? [];
  const found = cases.find((testCase) => testCase.operation !== undefined && resolveOperation(testCase.operation)?.route.operationId === operationId && testCase.answers !== undefined);
  if (!found?.answers) throw new StudioError(409, `no case of ${operationId} in ${testFile} records answers; run it against the ERP and save it as a test case first`);
  return found.answers;
}

export async function tryRoute(workspace: Workspace, asked: TryRequest): Promise<TryAnswer> {
  const file = workspace.file(asked.file);
  if (!file) throw new StudioError(404, `no mapping file ${asked.file} in this studio`);
  const mapping = file.serving;
  const engine = workspace.engine();
  if (!mapping || !engine) throw new StudioError(409, `${file.name} does not load and has no last good mapping to run: fix it in the editor`);
  const resolved = resolveOperation(asked.operation);
  if (!resolved) throw new StudioError(400, `"${asked.operation}" is not a contract operation`);
  const { route } = resolved;
  const input = asked.input ?? resolved.input;
  const mask = maskerOf(mapping);
  const prefix = engine.prefixed ? `/${mapping.name}` : '';
  let run;
  if (asked.source === 'recorded') {
    const client = createAnsweringClient({ answers: recordedAnswers(file, route.operationId), notSent: route.kind === 'event' });
    try {
      run = await runCase(mapping, route, input, client, mask, { expressions: true });
    } finally {
      client.close();
    }
    if (run.entry) engine.journal.add(run.entry, mask);
  } else {
    // The studio's engine sends with its own client: this one only stands in for runCase's bookkeeping.
    run = await runCase(mapping, route, input, createAnsweringClient({}), mask, { engine, prefix, expressions: true });
  }
  return {
    operation: route.operationId,
    route: `${route.method} ${route.path}`,
    source: asked.source === 'recorded' ? `recorded answers of ${testFileOf(file)}` : `the ERP at ${mask.url(mapping.system.baseUrl)}`,
    steps: run.steps,
    resultName: run.resultName,
    failure: run.failure,
    envelope: run.envelope,
    requestId: run.entry?.id,
  };
}
