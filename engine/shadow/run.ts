import { performance } from 'node:perf_hooks';
import { findRoute } from '../contract/routes';
import type { SchemaRegistry } from '../contract/schema-registry';
import { createEngine, type Engine } from '../core/engine';
import type { HttpClient } from '../http/client';
import { createJournal } from '../journal/journal';
import { silentLogger } from '../log';
import { createMasker, type Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import { createAnsweringClient, type AnsweringClient } from '../testing/answers';
import { testCaseOf } from '../testing/recorded-case';
import { fieldChanges, type FieldChange } from '../testing/replay';
import { runCase, type CaseRun } from '../testing/run-case';
import type { KeptRun, RunJob, ShadowOutcome } from './thread-messages';

/**
 * One candidate run, in the shadow's thread: the candidate's envelope from the live run's recorded ERP
 * answers, compared with the live envelope. Nothing is masked here: both envelopes are compared as the
 * engine made them, and what is kept is masked by the journal, in the live thread, when it is read.
 */

/**
 * A candidate ready to run: one engine for all its runs (its session and token caches carry over, as a
 * served mapping's do), whose ERP is whichever recorded answers the current run set.
 */
export interface PreparedCandidate {
  readonly mapping: Mapping;
  readonly engine: Engine;
  answering?: AnsweringClient;
}

/** The thread shows nothing to anyone: its runs go to the journal, which masks with the mapping's secrets. */
const UNMASKED: Masker = createMasker([]);

export function prepareCandidate(mapping: Mapping, schemas: SchemaRegistry): PreparedCandidate {
  const relay: HttpClient = {
    send: (request) => {
      if (!candidate.answering) throw new Error('a shadow candidate sent a request outside a run');
      return candidate.answering.send(request);
    },
    close: () => undefined,
  };
  // Silent: the candidate's request lines would read as live requests in the server's log. Its own
  // journal keeps nothing: a run's difference is kept in the server's journal.
  const engine = createEngine({ mappings: [mapping], http: relay, schemas, log: silentLogger, checkInboundAuth: false, outbox: 'inline', journal: createJournal({ size: 0 }) });
  const candidate: PreparedCandidate = { mapping, engine };
  return candidate;
}

/** A changed list of 5,000 orders says enough with its first 50 differences. */
const DIFFERENCE_LIMIT = 50;

/** The operation, the outcome, and the JSON paths that differ with list positions left out, or the reason it failed. */
function kindOf(operation: string, outcome: ShadowOutcome, differences: readonly FieldChange[], reason: string | undefined): string {
  const paths = new Set(differences.map((change) => change.path.replace(/\[\d+\]/g, '[*]')));
  return [operation, outcome, reason ?? '', ...[...paths].sort()].join('\n');
}

/**
 * Runs the candidate on the job's recorded answers. `keep` says whether a run of this kind is kept
 * (the first of its kind in its second); a kept run comes back with what the journal shows of it.
 */
export async function runJob(candidate: PreparedCandidate, job: RunJob, keep: (kind: string) => boolean): Promise<{ outcome: ShadowOutcome; kept?: KeptRun }> {
  const started = performance.now();
  const route = findRoute(job.operationId);
  if (!route) throw new Error(`"${job.operationId}" is no contract operation`);
  const ran = testCaseOf({ route, input: job.input, steps: job.steps, resultName: job.resultName, envelope: job.envelope }, 'shadow');
  let run: CaseRun | undefined;
  let reason: string | undefined;
  if ('problem' in ran) reason = ran.problem;
  else {
    const client = createAnsweringClient({ answers: 'answers' in ran ? ran.answers : undefined });
    candidate.answering = client;
    try {
      run = await runCase(candidate.mapping, route, ran.input, client, UNMASKED, { engine: candidate.engine });
      if (client.unanswered.length > 0) reason = `the candidate makes a call the live mapping did not make, so no ERP answer of it was recorded: ${client.unanswered.join(', ')}`;
    } catch (error) {
      reason = `the candidate faulted: ${(error as Error).message}`;
    } finally {
      candidate.answering = undefined;
    }
  }
  const differences = run ? fieldChanges(job.envelope, run.envelope).slice(0, DIFFERENCE_LIMIT) : [];
  const outcome: ShadowOutcome = reason !== undefined ? 'failed' : differences.length > 0 ? 'different' : 'same';
  if (outcome === 'same' || !keep(kindOf(job.operationId, outcome, differences, reason))) return { outcome };
  return { outcome, kept: keptOf(started, differences, reason, run) };
}

function keptOf(started: number, differences: readonly FieldChange[], reason: string | undefined, run?: CaseRun): KeptRun {
  return {
    differences,
    ...(reason === undefined ? {} : { reason }),
    steps: run?.steps ?? [],
    resultName: run?.resultName,
    success: run?.envelope.isResultSuccess ?? false,
    ...(run?.failure ? { failure: run.failure } : {}),
    envelope: run?.envelope,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
  };
}
