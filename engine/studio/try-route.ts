import type { Envelope } from '../contract/envelope';
import { createAnsweringClient } from '../testing/answers';
import { resolveOperation } from '../testing/resolve-operation';
import { maskerOf, runCase, type TraceStep } from '../testing/run-case';
import { answeredBodies } from './answer-fields';
import { changingCalls } from './changes-erp';
import { loadedFile } from './loaded-file';
import { runOnRecorded } from './recorded-match';
import { StudioError } from './studio-error';
import { testFileOf } from './views';
import type { Workspace } from './workspace';

/**
 * "Try a route": one operation run through the studio's Engine (`erp`: the ERP at the mapping's base
 * URL, the example ERP under --example-erp; the run is journaled and its events go to the outbox), or
 * on a fresh engine with the answers of the test file's case that answers this input (`recorded`:
 * nothing is sent; the run is journaled here too). Either way it is runCase, the code `dry-run` and
 * `test` use. Only a file whose saved text loads is run, and a call that can change the ERP is sent
 * only when the request says so (`confirm`).
 */
export type TrySource = 'erp' | 'recorded';

export interface TryRequest {
  readonly file: string;
  readonly operation: string;
  readonly input?: unknown;
  readonly source: TrySource;
  /** Send the calls that can change the ERP (source erp); without it such a run is refused with the list. */
  readonly confirm: boolean;
}

export interface TryAnswer {
  readonly operation: string;
  readonly route: string;
  readonly source: string;
  /** source recorded: the case whose answers stood for the ERP. */
  readonly recordedCase?: { readonly name: string; readonly at: string };
  readonly steps: readonly TraceStep[];
  readonly resultName: string;
  readonly failure?: { kind: string; message: string };
  readonly envelope: Envelope;
  /** The run's id in the journal (Requests page, "save as test case"). */
  readonly requestId?: string;
}

export async function tryRoute(workspace: Workspace, asked: TryRequest): Promise<TryAnswer> {
  const file = loadedFile(workspace, asked.file, 'be tried');
  const mapping = file.serving;
  const engine = workspace.engine();
  if (!mapping || !engine) throw new StudioError(409, `${file.name} has no mapping to run`);
  const resolved = resolveOperation(asked.operation);
  if (!resolved) throw new StudioError(400, `"${asked.operation}" is not a contract operation`);
  const { route } = resolved;
  const input = asked.input ?? resolved.input;
  const mask = maskerOf(mapping);
  const answer = (run: Awaited<ReturnType<typeof runCase>>, source: string) => {
    // What the ERP answered each call now: the editor completes calls.<name>.body. with its fields.
    workspace.keepTried(file, answeredBodies(run.steps));
    return {
      operation: route.operationId, route: `${route.method} ${route.path}`, source,
      steps: run.steps, resultName: run.resultName, failure: run.failure, envelope: run.envelope, requestId: run.entry?.id,
    };
  };
  if (asked.source === 'recorded') {
    const { run, recordedCase } = await runOnRecorded(mapping, route, input, testFileOf(file), mask);
    if (run.entry) engine.journal.add(run.entry, mask);
    return { ...answer(run, `recorded answers of "${recordedCase.name}" (${recordedCase.at})`), recordedCase };
  }
  const changing = changingCalls(mapping, route.operationId);
  if (changing.length > 0 && !asked.confirm) {
    throw new StudioError(409, `${route.operationId} can change the ERP at ${mask.url(mapping.system.baseUrl)}: it would send ${changing.join(', ')}. Send again with "confirm": true to send it`, { calls: changing });
  }
  const prefix = engine.prefixed ? `/${mapping.name}` : '';
  // The studio's engine sends with its own client: this one only stands in for runCase's bookkeeping.
  const run = await runCase(mapping, route, input, createAnsweringClient({}), mask, { engine, prefix, expressions: true });
  return answer(run, `the ERP at ${mask.url(mapping.system.baseUrl)}`);
}
