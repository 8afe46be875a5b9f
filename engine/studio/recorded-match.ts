import fs from 'node:fs';
import type { RouteSpec } from '../contract/routes';
import type { Mapping } from '../mapping/model';
import type { Masker } from '../mapping/mask';
import { createAnsweringClient, type RecordedAnswers } from '../testing/answers';
import { resolveOperation } from '../testing/resolve-operation';
import { runCase, type CaseRun } from '../testing/run-case';
import { readTestFile } from '../testing/test-file';
import { StudioError } from './studio-error';

/**
 * "Try" on recorded answers: a case's answers stand for the ERP only when they answer the request the
 * mapping sends for the input tried. Each case of the operation that records answers is run twice on its
 * own answers (the answering client of `test`): with its own input, and with the input tried. When both
 * send the same requests (method, URL with its query, body), the case answers this input and the run on
 * the tried input is the answer, naming the case. When no case does, the closest is named (409): a
 * recorded answer for K-1 is no answer for K-404.
 */
interface Candidate {
  readonly name: string;
  /** file:line of the case. */
  readonly at: string;
  readonly input: unknown;
  readonly answers: RecordedAnswers;
}

export interface RecordedRun {
  readonly run: CaseRun;
  readonly recordedCase: { readonly name: string; readonly at: string };
}

function candidates(testFile: string, operationId: string): Candidate[] {
  if (!fs.existsSync(testFile)) throw new StudioError(409, `there is no test file ${testFile} to take recorded answers from`);
  const read = readTestFile(testFile);
  if (!read.source || !read.file) throw new StudioError(409, `${testFile} cannot be read: ${read.issues[0]?.message ?? 'it is no test file'}`);
  const { source } = read;
  return read.file.cases.flatMap((testCase, index) => {
    const resolved = testCase.operation === undefined ? undefined : resolveOperation(testCase.operation);
    if (!resolved || resolved.route.operationId !== operationId || !testCase.answers) return [];
    return [{ name: testCase.name, at: `${testFile}:${source.at(['cases', index]).line}`, input: testCase.input ?? resolved.input, answers: testCase.answers }];
  });
}

/** The requests a run sent, each as one line: `METHOD URL body`. */
function requestsOf(run: CaseRun): string[] {
  return run.steps.flatMap((step) => (step.step === 'request' ? [`${step.method} ${step.url}${step.body === undefined ? '' : ` ${JSON.stringify(step.body)}`}`] : []));
}

async function runOn(mapping: Mapping, route: RouteSpec, input: unknown, answers: RecordedAnswers, mask: Masker, expressions: boolean): Promise<CaseRun> {
  const client = createAnsweringClient({ answers, notSent: route.kind === 'event' });
  try {
    return await runCase(mapping, route, input, client, mask, { expressions });
  } finally {
    client.close();
  }
}

/** How near a case's requests are to the tried ones: the requests alike, then the characters alike at the first that differs. */
function closeness(recorded: readonly string[], tried: readonly string[]): number {
  let same = 0;
  while (same < recorded.length && same < tried.length && recorded[same] === tried[same]) same += 1;
  const a = recorded[same] ?? '';
  const b = tried[same] ?? '';
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  return same * 100_000 + prefix;
}

export async function runOnRecorded(mapping: Mapping, route: RouteSpec, input: unknown, testFile: string, mask: Masker): Promise<RecordedRun> {
  const cases = candidates(testFile, route.operationId);
  if (cases.length === 0) throw new StudioError(409, `no case of ${route.operationId} in ${testFile} records answers; run it against the ERP and save it as a test case first`);
  let closest: { candidate: Candidate; recorded: string[]; tried: string[]; score: number } | undefined;
  for (const candidate of cases) {
    const recorded = requestsOf(await runOn(mapping, route, candidate.input, candidate.answers, mask, false));
    const run = await runOn(mapping, route, input, candidate.answers, mask, true);
    const tried = requestsOf(run);
    if (JSON.stringify(recorded) === JSON.stringify(tried)) return { run, recordedCase: { name: candidate.name, at: candidate.at } };
    const score = closeness(recorded, tried);
    if (!closest || score > closest.score) closest = { candidate, recorded, tried, score };
  }
  const { candidate, recorded, tried } = closest as NonNullable<typeof closest>;
  const differs = recorded.findIndex((request, index) => request !== tried[index]);
  const at = differs === -1 ? recorded.length : differs;
  const sends = tried[at] === undefined ? `sends ${tried.length} request(s)` : `sends ${tried[at]}`;
  const was = recorded[at] === undefined ? `made ${recorded.length} request(s)` : `was recorded for ${recorded[at]}`;
  throw new StudioError(409, `no case of ${route.operationId} in ${testFile} recorded answers for this input: it ${sends}; the closest case, "${candidate.name}" (${candidate.at}), ${was}. Run it against the ERP and save it as a test case, or try that case's input`, {
    requests: tried,
    closest: { name: candidate.name, at: candidate.at, requests: recorded },
  });
}
